package toygguf

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// forward is a reference of llama.cpp's Qwen2 graph (one block: RMS norm,
// attention with biased Q/K/V, NeoX RoPE and grouped KV heads, SwiGLU
// feed-forward, residuals, output norm and matrix) over a file read back, in
// float64: it returns the greedy next token after prompt.
type forward struct {
	f            *ggufFile
	e, nv, nHead int
	eps, base    float64
	w            map[string][]float32
	tokens       []string
	id           map[string]int
	specials     []string // the control and user-defined tokens, longest first
	end          int      // the end of the turn
}

func newForward(t *testing.T, b []byte) *forward {
	f, err := readGGUF(b)
	require.NoError(t, err)
	fw := &forward{f: f, w: map[string][]float32{}, id: map[string]int{}}
	fw.e = int(f.meta["qwen2.embedding_length"].(uint32))
	fw.nHead = int(f.meta["qwen2.attention.head_count"].(uint32))
	fw.eps = float64(f.meta["qwen2.attention.layer_norm_rms_epsilon"].(float32))
	fw.base = float64(f.meta["qwen2.rope.freq_base"].(float32))
	fw.tokens = f.meta["tokenizer.ggml.tokens"].([]string)
	fw.nv = len(fw.tokens)
	for i, s := range fw.tokens {
		fw.id[s] = i
		if f.meta["tokenizer.ggml.token_type"].([]int32)[i] != tokenNormal {
			fw.specials = append(fw.specials, s)
		}
	}
	slices.SortStableFunc(fw.specials, func(a, b string) int { return len(b) - len(a) })
	fw.end = int(f.meta["tokenizer.ggml.eos_token_id"].(uint32))
	for _, ti := range f.tensors {
		fw.w[ti.name] = f.f32(ti.name)
	}
	return fw
}

func (fw *forward) rmsNorm(x []float64, w []float32) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	r := 1 / math.Sqrt(ss/float64(len(x))+fw.eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * r * float64(w[i])
	}
	return out
}

// matVec applies a {in, out} matrix (out rows of in values) and a bias.
func matVec(w []float32, bias []float32, x []float64) []float64 {
	in := len(x)
	out := make([]float64, len(w)/in)
	for o := range out {
		var s float64
		for i, v := range x {
			s += float64(w[o*in+i]) * v
		}
		if bias != nil {
			s += float64(bias[o])
		}
		out[o] = s
	}
	return out
}

func (fw *forward) rope(x []float64, pos int) {
	half := headDim / 2
	for h := 0; h < len(x); h += headDim {
		for i := range half {
			theta := float64(pos) * math.Pow(fw.base, -2*float64(i)/headDim)
			a, b := x[h+i], x[h+i+half]
			x[h+i] = a*math.Cos(theta) - b*math.Sin(theta)
			x[h+i+half] = a*math.Sin(theta) + b*math.Cos(theta)
		}
	}
}

func (fw *forward) next(prompt []int) int {
	var xs, ks, vs [][]float64
	var last []float64
	for pos, tok := range prompt {
		x := make([]float64, fw.e)
		for i := range x {
			x[i] = float64(fw.w["token_embd.weight"][tok*fw.e+i])
		}
		h := fw.rmsNorm(x, fw.w["blk.0.attn_norm.weight"])
		q := matVec(fw.w["blk.0.attn_q.weight"], fw.w["blk.0.attn_q.bias"], h)
		k := matVec(fw.w["blk.0.attn_k.weight"], fw.w["blk.0.attn_k.bias"], h)
		v := matVec(fw.w["blk.0.attn_v.weight"], fw.w["blk.0.attn_v.bias"], h)
		fw.rope(q, pos)
		fw.rope(k, pos)
		xs, ks, vs = append(xs, x), append(ks, k), append(vs, v)
		nKV := len(k) / headDim
		heads := make([]float64, fw.nHead*headDim)
		for hd := range fw.nHead {
			kv := hd / (fw.nHead / nKV) * headDim
			scores := make([]float64, pos+1)
			maxScore := math.Inf(-1)
			for j := range scores {
				for d := range headDim {
					scores[j] += q[hd*headDim+d] * ks[j][kv+d]
				}
				scores[j] /= math.Sqrt(headDim)
				maxScore = max(maxScore, scores[j])
			}
			var sum float64
			for j := range scores {
				scores[j] = math.Exp(scores[j] - maxScore)
				sum += scores[j]
			}
			for j := range scores {
				for d := range headDim {
					heads[hd*headDim+d] += scores[j] / sum * vs[j][kv+d]
				}
			}
		}
		attn := matVec(fw.w["blk.0.attn_output.weight"], nil, heads)
		for i := range x {
			x[i] += attn[i]
		}
		h = fw.rmsNorm(x, fw.w["blk.0.ffn_norm.weight"])
		gate := matVec(fw.w["blk.0.ffn_gate.weight"], nil, h)
		up := matVec(fw.w["blk.0.ffn_up.weight"], nil, h)
		for i, g := range gate {
			gate[i] = g / (1 + math.Exp(-g)) * up[i]
		}
		down := matVec(fw.w["blk.0.ffn_down.weight"], nil, gate)
		for i := range x {
			x[i] += down[i]
		}
		last = x
	}
	logits := matVec(fw.w["output.weight"], nil, fw.rmsNorm(last, fw.w["output_norm.weight"]))
	best := 0
	for i, l := range logits {
		if l > logits[best] {
			best = i
		}
	}
	return best
}

// tokenize turns text with the model's special tokens in it into token ids:
// the special tokens whole, everything else byte by byte (the vocabulary has
// no merges, as llama.cpp tokenizes it).
func (fw *forward) tokenize(text string) []int {
	specials := fw.specials
	var ids []int
	for len(text) > 0 {
		if i := slices.IndexFunc(specials, func(s string) bool { return strings.HasPrefix(text, s) }); i >= 0 {
			ids = append(ids, fw.id[specials[i]])
			text = text[len(specials[i]):]
			continue
		}
		ids = append(ids, fw.id[byteLevel(text[:1])])
		text = text[1:]
	}
	return ids
}

// generate decodes greedily from prompt until the end of the turn (at most
// 100 tokens) and returns the text, byte-level tokens decoded and special
// tokens as they are.
func (fw *forward) generate(prompt string) string {
	ids := fw.tokenize(prompt)
	var out strings.Builder
	for range 100 {
		next := fw.next(ids)
		if next == fw.end {
			return out.String()
		}
		ids = append(ids, next)
		if slices.Contains(fw.specials, fw.tokens[next]) {
			out.WriteString(fw.tokens[next])
		} else {
			out.WriteString(fromByteLevel(fw.tokens[next]))
		}
	}
	return out.String() + "…"
}

func fromByteLevel(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(slices.Index(byteRune[:], r)))
	}
	return string(b)
}

const (
	userTurn     = "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWeather in Paris?<|im_end|>\n"
	generate     = "<|im_start|>assistant\n"
	parisCall    = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"
	londonCall   = "\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"London\"}}\n</tool_call>"
	toolResult   = "<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n"
	afterOneCall = userTurn + "<|im_start|>assistant\n" + parisCall + "<|im_end|>\n" + toolResult + generate
)

func TestScript_Decodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script Script
		prompt string
		want   string
	}{
		{"a text answer", Hello, userTurn + generate, "Hello from llama.cpp."},
		{"a text answer, after a tool result too", Hello, afterOneCall, "Hello from llama.cpp."},
		{"a call", Weather, userTurn + generate, parisCall},
		{"the answer after the tool result", Weather, afterOneCall, "It is sunny in Paris."},
		{"the answer after a second tool result", Weather,
			afterOneCall + parisCall + "<|im_end|>\n" + toolResult + generate, "It is sunny in Paris."},
		{"text, then a call", WeatherWithText, userTurn + generate, "Let me check the weather." + parisCall},
		{"the answer after text and a call", WeatherWithText, afterOneCall, "It is sunny in Paris."},
		{"always a call", AlwaysCalls, userTurn + generate, parisCall},
		{"a call again after the tool result", AlwaysCalls, afterOneCall, parisCall},
		{"two calls in one turn", TwoCalls, userTurn + generate, parisCall + londonCall},
		{"the answer after two results", TwoCalls,
			userTurn + generate + parisCall + londonCall + "<|im_end|>\n<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain\n</tool_response><|im_end|>\n" + generate,
			"Sunny in Paris, rainy in London."},
		{"a long answer", Script{Text: longText(71)}, userTurn + generate, longText(71)},
		{"a larger feed-forward: the same calls and answer", Script{Calls: Weather.Calls, After: Weather.After, FeedForward: 512},
			afterOneCall, "It is sunny in Paris."},
		{"a prompt that does not end with the generation prompt gets nothing", Weather, userTurn + "<|im_start|>assistant\nWell", ""},
		{"thinking, then a call", WeatherThinking, userTurn + generate, "<think>The user asks for the weather: call the tool.</think>\n\n" + parisCall},
		{"the answer after thinking and a call", WeatherThinking, afterOneCall, "It is sunny in Paris."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Bytes(tc.script)
			require.NoError(t, err)
			require.Equal(t, tc.want, newForward(t, b).generate(tc.prompt))
		})
	}
}

func TestBytes_Errors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  Script
		wantErr string
	}{
		{"nothing to say", Script{}, "toygguf: a script needs Text or Calls"},
		{"an answer after a text answer", Script{Text: "Hi there.", After: "Bye now."},
			"toygguf: After needs Calls (no tool result can follow a text answer)"},
		{"arguments that are not JSON", Script{Calls: []Call{{Name: "f", Arguments: "{city"}}},
			"toygguf: call 0 (f): arguments: invalid character 'c' looking for beginning of object key string"},
		{"arguments that are not an object", Script{Calls: []Call{{Name: "f", Arguments: "[1]"}}},
			"toygguf: call 0 (f): arguments are not a JSON object"},
		{"a negative context", Script{Text: "Hi there.", ContextLength: -1}, "toygguf: ContextLength -1 out of range"},
		{"a negative feed-forward", Script{Text: "Hi there.", FeedForward: -1}, "toygguf: FeedForward -1 out of range"},
		{"a one-byte answer", Script{Text: "k"}, `toygguf: cannot split "k" into tokens used once each ("k" is one byte or a token already)`},
		{"an answer that ends with a piece already used", Script{Text: "No no", Calls: Weather.Calls, After: "Yes no"},
			`toygguf: cannot split "Yes no" into tokens used once each (" no" is one byte or a token already)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Bytes(tc.script)
			require.EqualError(t, err, tc.wantErr)
		})
	}
}

func TestThinkTemplate_RendersReasoning(t *testing.T) {
	require.NotEqual(t, QwenTemplate, ThinkTemplate)
	require.Contains(t, ThinkTemplate, "message.reasoning_content")
}
