package session

// The context-usage estimator. The explainer leaves the measure to the implementation
// ("roughly proportional to the amount of data"); ours is the common rule of thumb for
// English text and BPE tokenizers, about four bytes a token, plus the control tokens a
// chat template spends on each message:
//
//	message     4 + the cost of its parts
//	text        ceil(bytes / 4)
//	image/audio 256 each (a typical vision-encoder patch budget)
//	tool call   ceil((len(name) + len(arguments JSON)) / 4) + 4
//	tool result ceil((len(name) + len(result JSON or errorMessage)) / 4) + 4
//	tool decl   ceil((len(name) + len(description) + len(inputSchema JSON)) / 4) + 8
//
// It is deterministic and needs no tokenizer, so measureContextUsage() answers the same
// in every backend and in tests. Backends that report real usage do not change it; see
// RATIONALE.md "Why is context usage an estimate?".

const (
	perMessage = 4
	perMedia   = 256
	perCall    = 4
	perTool    = 8
)

func ceil4(n int) int { return (n + 3) / 4 }

// TextCost is the estimated usage of n bytes of text (or of a call's name and arguments),
// without the per-message and per-call overheads.
func TextCost(n int) int { return ceil4(n) }

// Cost is the estimated context usage of one message.
func Cost(m Message) int {
	c := perMessage
	for _, p := range m.Parts {
		switch p.Type {
		case PartText, PartReasoning:
			c += ceil4(len(p.Text))
		case PartImage, PartAudio:
			c += perMedia
		case PartToolCall:
			c += perCall + ceil4(len(p.Call.Name)+len(p.Call.Arguments))
		case PartToolResult:
			r := p.Result
			n := len(r.Name) + len(r.Error)
			for _, rp := range r.Parts {
				if rp.Type == "image" || rp.Type == "audio" {
					c += perMedia
				}
				n += len(rp.Text) + len(rp.Value)
			}
			c += perCall + ceil4(n)
		}
	}
	return c
}

// CostOf is the estimated usage of msgs.
func CostOf(msgs []Message) int {
	c := 0
	for _, m := range msgs {
		c += Cost(m)
	}
	return c
}

// ToolsCost is the estimated usage of the tool declarations a model is given.
func ToolsCost(tools []Tool) int {
	c := 0
	for i := range tools {
		c += ToolCost(&tools[i])
	}
	return c
}

// ToolCost is the estimated usage of one tool declaration.
func ToolCost(t *Tool) int { return perTool + ceil4(len(t.Name)+len(t.Description)+len(t.InputSchema)) }
