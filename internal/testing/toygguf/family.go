package toygguf

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A Family is what a model family's toy has of its own: its special tokens,
// how its generation prompt ends, the token its prompt holds once a tool
// result is in it, how it writes its calls, and a chat template. The
// templates are the project's own, written to each family's published
// syntax: each reproduces the property the module's handling of the family
// depends on (it renders the tool list and calls, or only names tools, or
// never does; it raises on messages the family's template refuses; it opens
// <think> in its generation prompt), not the family's whole template.
type Family struct {
	// Name is the family's name, as the tests and docs/backends.md say it.
	Name string
	// Specials are the family's special tokens (Control: a control token,
	// which llama.cpp leaves out of the text it returns; otherwise
	// user-defined, which it keeps).
	Specials []Special
	// End ends the model's turn (the end-of-generation token); BOS is the
	// beginning of text ("" for End).
	End, BOS string
	// Starts are the tokens the generation prompt ends with (a special token,
	// or "\n"): their rows pick the turn's first token.
	Starts []string
	// Result is the token a prompt holds once it holds a tool result, which the
	// model's flag head looks for: a special token of the family, or
	// "```tool_result" for a family the module talks to in its text protocol
	// (its tool results come back in a tool_result fence).
	Result string
	// OpensThink says the generation prompt opens the <think> block, as
	// DeepSeek-R1's does: a Script's Think is written without <think>.
	OpensThink bool
	// Template is the family's chat template.
	Template string
	// Write writes a turn's calls as the family's model does.
	Write func([]Call) (string, error)
}

// Special is a special token of a family.
type Special struct {
	Text    string
	Control bool
}

// textResult is the token a family the module talks to in its text protocol
// has for a tool result: the start of the tool_result fence the module writes.
const textResult = "```tool_result"

// chatML are the ChatML turn tokens (Qwen, Hermes, SmolLM3, LFM2).
var chatML = []Special{{endOfText, true}, {imStart, true}, {imEnd, true}}

// fields reads a JSON object's members in their order, each value as JSON.
func fields(args string) ([][2]string, error) {
	d := json.NewDecoder(strings.NewReader(args))
	d.UseNumber()
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	var out [][2]string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, [2]string{k.(string), string(v)})
	}
	return out, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// eachCall writes each call with one, joined by sep.
func eachCall(calls []Call, sep string, one func(i int, c Call, args [][2]string) string) (string, error) {
	var parts []string
	for i, c := range calls {
		args, err := fields(c.Arguments)
		if err != nil {
			return "", fmt.Errorf("toygguf: call %d (%s): arguments: %v", i, c.Name, err)
		}
		parts = append(parts, one(i, c, args))
	}
	return strings.Join(parts, sep), nil
}

// hermesCall is <tool_call>{"name", "arguments"}</tool_call>, one per call.
func hermesCall(calls []Call) (string, error) {
	return eachCall(calls, "\n", func(_ int, c Call, _ [][2]string) string {
		return toolCallOpen + "\n{\"name\": " + quote(c.Name) + ", \"arguments\": " + c.Arguments + "}\n" + toolCallClose
	})
}

// The families.
var (
	// Qwen25 is Qwen2.5-Instruct: ChatML, the tool list in <tools>, a call as
	// <tool_call>{"name", "arguments"}</tool_call>, results in <tool_response>.
	Qwen25 = &Family{
		Name:     "Qwen2.5",
		Specials: append(chatML[:3:3], Special{Text: toolCallOpen}, Special{Text: toolCallClose}, Special{Text: toolResponse}, Special{Text: toolResponseEnd}),
		End:      imEnd, BOS: endOfText, Starts: []string{"\n"}, Result: toolResponse,
		Template: QwenTemplate, Write: hermesCall,
	}
	// Qwen3 is Qwen2.5 with <think> and </think> tokens, and a template that
	// renders what an assistant message thought.
	Qwen3 = &Family{
		Name:     "Qwen3",
		Specials: append(Qwen25.Specials[:7:7], Special{Text: thinkOpen}, Special{Text: thinkClose}),
		End:      imEnd, BOS: endOfText, Starts: []string{"\n"}, Result: toolResponse,
		Template: ThinkTemplate, Write: hermesCall,
	}
	// Qwen3Coder writes its calls in XML: <tool_call><function=NAME>
	// <parameter=KEY>VALUE</parameter></function></tool_call>.
	Qwen3Coder = &Family{
		Name:     "Qwen3-Coder",
		Specials: Qwen25.Specials,
		End:      imEnd, BOS: endOfText, Starts: []string{"\n"}, Result: toolResponse,
		Template: qwen3CoderTemplate,
		Write: func(calls []Call) (string, error) {
			return eachCall(calls, "\n", func(_ int, c Call, args [][2]string) string {
				var b strings.Builder
				b.WriteString(toolCallOpen + "\n<function=" + c.Name + ">\n")
				for _, a := range args {
					v := a[1]
					var s string
					if json.Unmarshal([]byte(v), &s) == nil {
						v = s
					}
					b.WriteString("<parameter=" + a[0] + ">\n" + v + "\n</parameter>\n")
				}
				b.WriteString("</function>\n" + toolCallClose)
				return b.String()
			})
		},
	}
	// Llama32 is Llama 3.2 Instruct: header tokens, a call as the whole turn's
	// JSON {"name", "parameters"}, results in the ipython role.
	Llama32 = &Family{
		Name: "Llama 3.2",
		Specials: []Special{{"<|begin_of_text|>", true}, {"<|start_header_id|>", true}, {"<|end_header_id|>", true},
			{"<|eot_id|>", true}, {"<|eom_id|>", true}, {"<|python_tag|>", false}, {"ipython", false}},
		End: "<|eot_id|>", BOS: "<|begin_of_text|>", Starts: []string{"\n"}, Result: "ipython",
		Template: llama32Template,
		Write: func(calls []Call) (string, error) {
			return eachCall(calls, "; ", func(_ int, c Call, _ [][2]string) string {
				return "{\"name\": " + quote(c.Name) + ", \"parameters\": " + c.Arguments + "}"
			})
		},
	}
	// Gemma3 is Gemma 3: turns of user and model, no tools in its template
	// (the module's text protocol: the model writes the module's own fence),
	// and roles that must alternate.
	Gemma3 = &Family{
		Name:     "Gemma 3",
		Specials: []Special{{"<bos>", true}, {"<start_of_turn>", true}, {"<end_of_turn>", true}, {textResult, false}},
		End:      "<end_of_turn>", BOS: "<bos>", Starts: []string{"\n"}, Result: textResult,
		Template: gemma3Template, Write: fenceCall,
	}
	// Gemma4 is Gemma 4: <|turn> and <turn|>, the tool list in <|tool>, a call
	// as <|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>.
	Gemma4 = &Family{
		Name: "Gemma 4",
		Specials: []Special{{"<bos>", true}, {"<|turn>", true}, {"<turn|>", true}, {"<|tool>", false}, {"<tool|>", false},
			{"<|tool_call>", false}, {"<tool_call|>", false}, {"<|tool_response>", false}, {"<tool_response|>", false}, {`<|"|>`, false}},
		End: "<turn|>", BOS: "<bos>", Starts: []string{"\n"}, Result: "<|tool_response>",
		Template: gemma4Template,
		Write: func(calls []Call) (string, error) {
			return eachCall(calls, "", func(_ int, c Call, args [][2]string) string {
				var parts []string
				for _, a := range args {
					v := a[1]
					var s string
					if json.Unmarshal([]byte(v), &s) == nil {
						v = `<|"|>` + s + `<|"|>`
					}
					parts = append(parts, a[0]+":"+v)
				}
				return "<|tool_call>call:" + c.Name + "{" + strings.Join(parts, ",") + "}<tool_call|>"
			})
		},
	}
	// LFM2 is Liquid's LFM2: ChatML, the tool list between <|tool_list_start|>
	// and <|tool_list_end|>, calls as a Python list of calls between
	// <|tool_call_start|> and <|tool_call_end|>.
	LFM2 = &Family{
		Name: "LFM2",
		Specials: append(chatML[:3:3], Special{Text: "<|tool_list_start|>"}, Special{Text: "<|tool_list_end|>"},
			Special{Text: "<|tool_call_start|>"}, Special{Text: "<|tool_call_end|>"},
			Special{Text: "<|tool_response_start|>"}, Special{Text: "<|tool_response_end|>"}),
		End: imEnd, BOS: endOfText, Starts: []string{"\n"}, Result: "<|tool_response_start|>",
		Template: lfm2Template,
		Write: func(calls []Call) (string, error) {
			list, err := eachCall(calls, ", ", func(_ int, c Call, args [][2]string) string {
				var parts []string
				for _, a := range args {
					parts = append(parts, a[0]+"="+a[1])
				}
				return c.Name + "(" + strings.Join(parts, ", ") + ")"
			})
			return "<|tool_call_start|>[" + list + "]<|tool_call_end|>", err
		},
	}
	// Phi4Mini is Phi-4-mini-instruct: its template names tools only as a
	// message's key and renders neither the request's tools nor calls, and
	// its model writes <|tool_call|>{json}<|/tool_call|>, control tokens that
	// llama.cpp leaves out of the text (the bare JSON remains).
	Phi4Mini = &Family{
		Name: "Phi-4-mini",
		Specials: []Special{{"<|endoftext|>", true}, {"<|system|>", true}, {"<|user|>", true}, {"<|assistant|>", true},
			{"<|end|>", true}, {"<|tool|>", true}, {"<|/tool|>", true}, {"<|tool_call|>", true}, {"<|/tool_call|>", true}, {textResult, false}},
		End: "<|end|>", BOS: "<|endoftext|>", Starts: []string{"<|assistant|>"}, Result: textResult,
		Template: phi4MiniTemplate,
		Write: func(calls []Call) (string, error) {
			return eachCall(calls, "", func(_ int, c Call, _ [][2]string) string {
				return "<|tool_call|>{\"name\": " + quote(c.Name) + ", \"arguments\": " + c.Arguments + "}<|/tool_call|>"
			})
		},
	}
	// SmolLM3 is SmolLM3: ChatML with <think>, a template that speaks of tools
	// in prose and renders them only under its own xml_tools variable, and a
	// model that writes <tool_call>{json}</tool_call> after its thinking.
	SmolLM3 = &Family{
		Name: "SmolLM3",
		Specials: append(chatML[:3:3], Special{Text: thinkOpen}, Special{Text: thinkClose},
			Special{Text: toolCallOpen}, Special{Text: toolCallClose}, Special{Text: textResult}),
		End: imEnd, BOS: endOfText, Starts: []string{"\n"}, Result: textResult,
		Template: smolLM3Template, Write: hermesCall,
	}
	// Hermes2Pro is Hermes 2 Pro: ChatML, the tool list in <tools>, calls as
	// <tool_call>{"arguments", "name"}</tool_call>, results as the tool role's
	// <tool_response> with the tool's name, which its template requires.
	Hermes2Pro = &Family{
		Name:     "Hermes 2 Pro",
		Specials: Qwen25.Specials,
		End:      imEnd, BOS: endOfText, Starts: []string{"\n"}, Result: toolResponse,
		Template: hermes2ProTemplate,
		Write: func(calls []Call) (string, error) {
			return eachCall(calls, "\n", func(_ int, c Call, _ [][2]string) string {
				return toolCallOpen + "\n{\"arguments\": " + c.Arguments + ", \"name\": " + quote(c.Name) + "}\n" + toolCallClose
			})
		},
	}
	// MistralNemo is Mistral Nemo: [INST] turns, the tool list in
	// [AVAILABLE_TOOLS], calls as [TOOL_CALLS] and a JSON list of
	// {"name", "arguments", "id"} whose ids are nine letters or digits, which its
	// template requires of every call id and tool result.
	MistralNemo = &Family{
		Name: "Mistral Nemo",
		Specials: []Special{{"<s>", true}, {"</s>", true}, {"[INST]", true}, {"[/INST]", true}, {"[TOOL_CALLS]", false},
			{"[AVAILABLE_TOOLS]", true}, {"[/AVAILABLE_TOOLS]", true}, {"[TOOL_RESULTS]", true}, {"[/TOOL_RESULTS]", true}},
		End: "</s>", BOS: "<s>", Starts: []string{"[/INST]", "[/TOOL_RESULTS]"}, Result: "[TOOL_RESULTS]",
		Template: mistralNemoTemplate,
		Write: func(calls []Call) (string, error) {
			list, err := eachCall(calls, ", ", func(i int, c Call, _ [][2]string) string {
				return "{\"name\": " + quote(c.Name) + ", \"arguments\": " + c.Arguments + ", \"id\": " + quote(MistralCallIDs[i%len(MistralCallIDs)]) + "}"
			})
			return "[TOOL_CALLS][" + list + "]", err
		},
	}
	// DeepSeekR1 is a DeepSeek-R1 distill: a template that never names tools
	// (the module's text protocol) and opens <think> in its generation prompt,
	// and a model that writes its calls in DeepSeek's own tokens.
	DeepSeekR1 = &Family{
		Name: "DeepSeek-R1 distill",
		Specials: []Special{{"<｜begin▁of▁sentence｜>", true}, {"<｜end▁of▁sentence｜>", true}, {"<｜User｜>", false}, {"<｜Assistant｜>", false},
			{thinkOpen, false}, {thinkClose, false}, {"<｜tool▁calls▁begin｜>", false}, {"<｜tool▁calls▁end｜>", false},
			{"<｜tool▁call▁begin｜>", false}, {"<｜tool▁call▁end｜>", false}, {"<｜tool▁sep｜>", false}, {textResult, false}},
		End: "<｜end▁of▁sentence｜>", BOS: "<｜begin▁of▁sentence｜>", Starts: []string{"\n"}, Result: textResult, OpensThink: true,
		Template: deepSeekR1Template,
		Write: func(calls []Call) (string, error) {
			list, err := eachCall(calls, "", func(_ int, c Call, _ [][2]string) string {
				return "<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + c.Name + "\n```json\n" + c.Arguments + "\n```<｜tool▁call▁end｜>"
			})
			return "<｜tool▁calls▁begin｜>" + list + "<｜tool▁calls▁end｜>", err
		},
	}
)

// MistralCallIDs are the ids MistralNemo's model gives its calls, in turn.
var MistralCallIDs = []string{"a1b2c3d4e", "f5g6h7i8j"}

// fenceCall is the module's own text-protocol call: a tool_call fence.
func fenceCall(calls []Call) (string, error) {
	return eachCall(calls, "\n", func(_ int, c Call, _ [][2]string) string {
		return "```tool_call\n{\"name\": " + quote(c.Name) + ", \"arguments\": " + c.Arguments + "}\n```"
	})
}

// Families are the families the tests run, Qwen25 first.
var Families = []*Family{Qwen25, Qwen3, Qwen3Coder, Llama32, Gemma3, Gemma4, LFM2, Phi4Mini, SmolLM3, Hermes2Pro, MistralNemo, DeepSeekR1}
