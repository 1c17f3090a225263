// Package toygguf writes tiny deterministic GGUF models that real llama.cpp
// (wllama in the browser tests) loads and runs, for tests only: no real chat
// weights can be downloaded where the tests run, and a test needs a model
// whose answer it knows token for token.
//
// A model is written for a Script: the text it answers, or the tool calls it
// makes and the answer it gives once a tool result is in the prompt.
//
//	var buf bytes.Buffer
//	err := toygguf.Write(&buf, toygguf.Weather) // get_weather {"city": "Paris"}, then an answer
//
// A script's texts are cut into tokens at spaces (a word keeps the space
// before it); a piece that is one byte or already a token is joined to the
// next, and Write fails when the last one cannot be: every piece is used once.
//
// How it works. The architecture is Qwen2 with one block, F32 weights, and
// Qwen2.5's chat template with tools, so llama.cpp's own Hermes/Qwen parser
// turns the model's <tool_call> text into OpenAI tool calls. The vocabulary is
// the 256 GPT-2 byte tokens (every prompt tokenizes to them: there are no
// merges), one token for each piece of the scripted output, and Qwen's special
// tokens. Token embeddings are one-hot (a dimension for the newline,
// <tool_response> and each piece with a successor; every other token shares
// one) and the feed-forward is all zero, so the output matrix is a next-token
// table: each piece's row points at the next piece and the last at
// <|im_end|>, and decoding emits the script. The prompt always ends with
// "<|im_start|>assistant\n", so the newline's row decides the first token:
// weight 40 to the call's first token, 32 to the answer's. One attention head
// writes a flag dimension when the prompt holds <tool_response>: its query is
// a constant bias, its key is set only on <tool_response>, in the head's last
// RoPE pair with a huge rope.freq_base, so position does not matter and the
// head attends to that token alone; the flag adds 16 to the answer's first
// token, which then wins (48 > 40). The logits are the weights times
// sqrt(n_embd) (8), or sqrt(n_embd/2) with the flag, so the closest gap is 45
// and sampling at any usual temperature follows the script too. Every token
// also points weakly at <|im_end|>, so a prompt the script does not cover (one
// ending in something else than the generation prompt) gets an empty answer
// rather than noise. Verified with wllama 3.13.0 and llama-server b11669.
//
// Prompts have no merges to go through, so a prompt's token count (llama.cpp's
// usage.prompt_tokens) is the byte length of the text the template renders,
// each special token counting one.
//
// Only tests use this package; a model is about 0.3 MB and takes
// milliseconds to write, so tests generate it and nothing .gguf is committed.
package toygguf

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Script says what a model answers.
type Script struct {
	// Think is what the model thinks first, as Qwen3 and DeepSeek-R1 do: the
	// turn begins with <think>, this text, </think> and a blank line (the two
	// tags are tokens of their own, as in Qwen3's vocabulary; a family whose
	// generation prompt opens the block, OpensThink, leaves out <think>). ""
	// for none. The family's special tokens in it are tokens, as in Calls.
	Think string
	// Text is the whole answer when there are no Calls; with Calls, the text
	// the model writes before them ("" for none).
	Text string
	// Calls are the tool calls of the model's turn (it ends with
	// finish_reason "tool_calls").
	Calls []Call
	// After is the text answer the model gives when the prompt holds a tool
	// result (in a family whose generation prompt opens <think>, after
	// AfterThought, since its turn starts inside the block) (the <tool_response> token, which any prompt text containing
	// "<tool_response>" has). Empty with Calls: the model makes the same Calls
	// again after every tool result (it always calls).
	After string
	// Family is the model family whose tokens, template and call syntax the
	// model has; nil is Qwen25.
	Family *Family
	// Template is the model's chat template (tokenizer.chat_template); ""
	// is the family's (QwenTemplate for Qwen25). ChatMLTemplate has no tools.
	Template string
	// ContextLength is the model's context size (qwen2.context_length, what
	// llama.cpp calls n_ctx_train); 0 is 4096.
	ContextLength int
	// FeedForward is the feed-forward length (qwen2.feed_forward_length); 0
	// is 64. The feed-forward is all zeros, so a larger one answers the same
	// and only makes the file larger: about 12 × FeedForward × the embedding
	// length bytes (a test that a model's weights are not copied).
	FeedForward int
}

// Call is one tool call: the tool's name and its arguments as a JSON object.
type Call struct {
	Name      string
	Arguments string
}

// The scripts the tests use.
var (
	// Weather calls get_weather {"city": "Paris"}, and after the result
	// answers "It is sunny in Paris.".
	Weather = Script{
		Calls: []Call{{Name: "get_weather", Arguments: `{"city": "Paris"}`}},
		After: "It is sunny in Paris.",
	}
	// WeatherWithText writes a sentence, then makes Weather's call.
	WeatherWithText = Script{
		Text:  "Let me check the weather.",
		Calls: Weather.Calls,
		After: Weather.After,
	}
	// AlwaysCalls calls get_weather {"city": "Paris"} on every turn, after a
	// tool result too (for maxToolCalls).
	AlwaysCalls = Script{Calls: Weather.Calls}
	// TwoCalls makes two calls in one turn, get_weather {"city": "Paris"} and
	// get_weather {"city": "London"} (wllama 3.13.0 parses both whatever
	// parallel_tool_calls says), then answers "Sunny in Paris, rainy in
	// London.". The second call is plain text tokens, so that no token has two
	// successors.
	TwoCalls = Script{
		Calls: []Call{
			{Name: "get_weather", Arguments: `{"city": "Paris"}`},
			{Name: "get_weather", Arguments: `{"city": "London"}`},
		},
		After: "Sunny in Paris, rainy in London.",
	}
	// WeatherThinking thinks, as Qwen3 does, then makes Weather's call, in a
	// model whose template renders what it thought (ThinkTemplate).
	WeatherThinking = Script{
		Think:    "The user asks for the weather: call the tool.",
		Calls:    Weather.Calls,
		After:    Weather.After,
		Template: ThinkTemplate,
	}
	// Hello answers "Hello from llama.cpp." and never calls a tool.
	Hello = Script{Text: "Hello from llama.cpp."}
)

// AfterThought is what a model of a family whose generation prompt opens
// <think> (DeepSeekR1) writes before its After answer: a thought and the
// block's end, as plain text.
const AfterThought = "The tool has answered.</think>\n\n"

// Write writes the model for s to w as a GGUF v3 file.
func Write(w io.Writer, s Script) error {
	m, err := build(s)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := writeGGUF(bw, m.metadata(), m.tensors()); err != nil {
		return err
	}
	return bw.Flush()
}

// Bytes returns the model for s as a GGUF v3 file.
func Bytes(s Script) ([]byte, error) {
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Token types (llama.cpp's llama_token_type).
const (
	tokenNormal      int32 = 1
	tokenControl     int32 = 3
	tokenUserDefined int32 = 4
)

// Qwen's special tokens.
const (
	endOfText       = "<|endoftext|>"
	imStart         = "<|im_start|>"
	imEnd           = "<|im_end|>"
	toolCallOpen    = "<tool_call>"
	toolCallClose   = "</tool_call>"
	toolResponse    = "<tool_response>"
	toolResponseEnd = "</tool_response>"
	thinkOpen       = "<think>"
	thinkClose      = "</think>"
)

// Shape constants.
const (
	headDim     = 64
	feedForward = 64
	contextLen  = 4096
	ropeBase    = 1e20
	rmsEpsilon  = 1e-6

	weightNext   = 40 // a piece to the next piece, and the newline to the turn's first token
	weightAnswer = 32 // the newline to the answer's first token
	weightFlag   = 16 // the flag to the answer's first token
	weightEnd    = 4  // any token to <|im_end|>: a prompt the script does not cover gets an empty answer
	keyScore     = 50 // the flag head's attention score on <tool_response>

	otherDim = 0 // the embedding dimension of every token that is not a piece with a successor, the newline or <tool_response>
)

type model struct {
	tokens        []string // GPT-2 byte-level texts
	types         []int32
	id            map[string]int
	next          map[int]int // the output table: token → next token
	start         int         // the turn's first token, after "<|im_start|>assistant\n"
	answer        int         // the answer's first token after a tool result, or -1
	nEmbd         int
	template      string
	contextLength int
	feedForward   int
	dim           map[int]int // a token's embedding dimension; tokens not in it share otherDim
	flag          int         // the flag dimension
	family        *Family
	starts        []int // the generation prompt's last tokens
	result        int   // the token a prompt holding a tool result has
}

// token returns the id of t, a special token or a one-byte text.
func (m *model) token(t string) int {
	if id, ok := m.id[t]; ok {
		return id
	}
	return m.id[byteLevel(t)]
}

// text splits text into tokens: the family's special tokens (and <think>,
// </think> where the vocabulary has them) whole the first time the turn uses
// them (used), everything else as pieces. A special token is text when the
// text before it is one byte (a piece is two at least).
func (m *model) text(text string, used map[int]bool) ([]int, error) {
	var ids []int
	plain := ""
	flush := func() error {
		if plain == "" {
			return nil
		}
		p, err := m.pieces(plain)
		ids = append(ids, p...)
		plain = ""
		return err
	}
	for len(text) > 0 {
		sp := ""
		for id, tok := range m.tokens {
			if m.types[id] != tokenNormal && !used[id] && strings.HasPrefix(text, tok) && len(tok) > len(sp) && len(plain) != 1 {
				sp = tok
			}
		}
		if sp == "" {
			plain += text[:1]
			text = text[1:]
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		used[m.id[sp]] = true
		ids = append(ids, m.id[sp])
		text = text[len(sp):]
	}
	return ids, flush()
}

func (m *model) add(text string, typ int32) (int, error) {
	if _, dup := m.id[text]; dup {
		return 0, fmt.Errorf("toygguf: token %q twice in the vocabulary", text)
	}
	m.id[text] = len(m.tokens)
	m.tokens = append(m.tokens, text)
	m.types = append(m.types, typ)
	return len(m.tokens) - 1, nil
}

// pieces splits text into byte-level tokens new to the vocabulary, each at
// least two bytes (a one-byte piece would be a byte token, which the prompt
// uses too): words with their leading space, a word joined to the next while
// it is not new.
func (m *model) pieces(text string) ([]int, error) {
	var words []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			words = append(words, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		words = append(words, text[start:])
	}
	var ids []int
	cur := ""
	for i, w := range words {
		cur += w
		enc := byteLevel(cur)
		if _, used := m.id[enc]; used || len(cur) < 2 {
			if i < len(words)-1 {
				continue
			}
			return nil, fmt.Errorf("toygguf: cannot split %q into tokens used once each (%q is one byte or a token already)", text, cur)
		}
		id, err := m.add(enc, tokenNormal)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
		cur = ""
	}
	return ids, nil
}

func (m *model) chain(ids []int) error {
	for i := 0; i+1 < len(ids); i++ {
		if n, ok := m.next[ids[i]]; ok && n != ids[i+1] {
			return fmt.Errorf("toygguf: token %q has two successors", m.tokens[ids[i]])
		}
		m.next[ids[i]] = ids[i+1]
	}
	return nil
}

func build(s Script) (*model, error) {
	if len(s.Calls) == 0 && s.Text == "" {
		return nil, errors.New("toygguf: a script needs Text or Calls")
	}
	if s.ContextLength < 0 || s.ContextLength > math.MaxUint32 {
		return nil, fmt.Errorf("toygguf: ContextLength %d out of range", s.ContextLength)
	}
	if s.FeedForward < 0 || s.FeedForward > math.MaxUint32 {
		return nil, fmt.Errorf("toygguf: FeedForward %d out of range", s.FeedForward)
	}
	if len(s.Calls) == 0 && s.After != "" {
		return nil, errors.New("toygguf: After needs Calls (no tool result can follow a text answer)")
	}
	f := cmp.Or(s.Family, Qwen25)
	m := &model{id: map[string]int{}, next: map[int]int{}, answer: -1, template: cmp.Or(s.Template, f.Template), contextLength: s.ContextLength,
		feedForward: cmp.Or(s.FeedForward, feedForward), family: f}
	for b := range 256 {
		if _, err := m.add(byteLevel(string([]byte{byte(b)})), tokenNormal); err != nil {
			return nil, err
		}
	}
	specials := f.Specials
	if s.Think != "" {
		for _, t := range []string{thinkOpen, thinkClose} {
			if !slices.ContainsFunc(specials, func(sp Special) bool { return sp.Text == t }) {
				specials = append(slices.Clip(specials), Special{Text: t})
			}
		}
	}
	for _, sp := range specials {
		typ := tokenUserDefined
		if sp.Control {
			typ = tokenControl
		}
		if _, err := m.add(sp.Text, typ); err != nil {
			return nil, err
		}
	}
	for _, t := range append([]string{f.End, f.Result}, f.Starts...) {
		if _, ok := m.id[t]; !ok {
			if _, ok := m.id[byteLevel(t)]; !ok || len(t) != 1 {
				return nil, fmt.Errorf("toygguf: family %s: %q is not one of its tokens", f.Name, t)
			}
		}
	}
	end := m.id[f.End]

	// The turn: what it thinks, the text, then the calls as the family writes
	// them. A special token is a token the first time the turn uses it, and
	// plain text after (a token used twice would have two successors).
	used := map[int]bool{}
	var turn []int
	if s.Think != "" {
		think := s.Think
		if !f.OpensThink {
			think = thinkOpen + think
		}
		ids, err := m.text(think+thinkClose, used)
		if err != nil {
			return nil, err
		}
		blank, err := m.pieces("\n\n")
		if err != nil {
			return nil, err
		}
		turn = append(append(turn, ids...), blank...)
	}
	if s.Text != "" {
		ids, err := m.text(s.Text, used)
		if err != nil {
			return nil, err
		}
		turn = append(turn, ids...)
	}
	for i, c := range s.Calls {
		var args any
		if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
			return nil, fmt.Errorf("toygguf: call %d (%s): arguments: %v", i, c.Name, err)
		}
		if _, ok := args.(map[string]any); !ok {
			return nil, fmt.Errorf("toygguf: call %d (%s): arguments are not a JSON object", i, c.Name)
		}
	}
	if len(s.Calls) > 0 {
		text, err := f.Write(s.Calls)
		if err != nil {
			return nil, err
		}
		ids, err := m.text(text, used)
		if err != nil {
			return nil, err
		}
		turn = append(turn, ids...)
	}
	turn = append(turn, end)
	if err := m.chain(turn); err != nil {
		return nil, err
	}
	m.start = turn[0]

	if s.After != "" {
		after := s.After
		if f.OpensThink {
			after = AfterThought + after
		}
		ids, err := m.pieces(after)
		if err != nil {
			return nil, err
		}
		ids = append(ids, end)
		if err := m.chain(ids); err != nil {
			return nil, err
		}
		m.answer = ids[0]
	}
	// Dimensions: the shared one (0), the generation prompt's last tokens,
	// the tool result's token, each token with a successor, in id order, then
	// the flag.
	m.result = m.token(f.Result)
	for _, t := range f.Starts {
		m.starts = append(m.starts, m.token(t))
	}
	m.dim = map[int]int{}
	for id := range m.tokens {
		if _, ok := m.next[id]; ok || slices.Contains(m.starts, id) || id == m.result {
			m.dim[id] = len(m.dim) + 1
		}
	}
	m.flag = len(m.dim) + 1
	m.nEmbd = (m.flag + 1 + headDim - 1) / headDim * headDim
	return m, nil
}

func (m *model) metadata() []kv {
	return []kv{
		{"general.architecture", "qwen2"},
		{"general.name", "toygguf"},
		{"general.alignment", uint32(Alignment)},
		{"qwen2.context_length", uint32(cmp.Or(m.contextLength, contextLen))},
		{"qwen2.embedding_length", uint32(m.nEmbd)},
		{"qwen2.block_count", uint32(1)},
		{"qwen2.feed_forward_length", uint32(m.feedForward)},
		{"qwen2.attention.head_count", uint32(m.nEmbd / headDim)},
		{"qwen2.attention.head_count_kv", uint32(1)},
		{"qwen2.attention.layer_norm_rms_epsilon", float32(rmsEpsilon)},
		{"qwen2.rope.freq_base", float32(ropeBase)},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "qwen2"},
		{"tokenizer.ggml.tokens", m.tokens},
		{"tokenizer.ggml.token_type", m.types},
		{"tokenizer.ggml.merges", []string{}},
		{"tokenizer.ggml.bos_token_id", uint32(m.id[cmp.Or(m.family.BOS, m.family.End)])},
		{"tokenizer.ggml.eos_token_id", uint32(m.id[m.family.End])},
		{"tokenizer.ggml.padding_token_id", uint32(m.id[cmp.Or(m.family.BOS, m.family.End)])},
		{"tokenizer.ggml.add_bos_token", false},
		{"tokenizer.chat_template", m.template},
	}
}

func ones(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// tensors returns the weights. A matrix's dims are {in, out} (ggml's ne), its
// data out rows of in values: element (out, in) is data[out*in_len + in].
func (m *model) tensors() []tensor {
	e, nv, ff := m.nEmbd, len(m.tokens), m.feedForward
	u := func(n int) uint64 { return uint64(n) }
	dim := func(t int) int {
		if d, ok := m.dim[t]; ok {
			return d
		}
		return otherDim
	}
	embd := make([]float32, e*nv)
	for t := range nv {
		embd[t*e+dim(t)] = 1
	}
	// The attention input is rms_norm(one-hot): sqrt(e) on the token's dimension.
	scale := float32(math.Sqrt(float64(e)))
	qBias := make([]float32, e)
	qBias[headDim-1] = float32(math.Sqrt(headDim)) // cancels the 1/sqrt(headDim) of the scores
	k := make([]float32, headDim*e)
	k[(headDim-1)*e+dim(m.result)] = keyScore / scale
	v := make([]float32, headDim*e)
	v[0*e+dim(m.result)] = 1 / scale
	o := make([]float32, e*e)
	o[m.flag*e+0] = 1 // head 0's first value dimension → the flag
	out := make([]float32, nv*e)
	end := m.id[m.family.End]
	for d := range m.flag {
		out[end*e+d] = weightEnd
	}
	for from, to := range m.next {
		out[to*e+dim(from)] = weightNext
	}
	for _, st := range m.starts {
		out[m.start*e+dim(st)] = weightNext
		if m.answer >= 0 {
			out[m.answer*e+dim(st)] = weightAnswer
		}
	}
	if m.answer >= 0 {
		out[m.answer*e+m.flag] = weightFlag
	}
	return []tensor{
		{"token_embd.weight", []uint64{u(e), u(nv)}, embd},
		{"blk.0.attn_norm.weight", []uint64{u(e)}, ones(e)},
		{"blk.0.attn_q.weight", []uint64{u(e), u(e)}, make([]float32, e*e)},
		{"blk.0.attn_q.bias", []uint64{u(e)}, qBias},
		{"blk.0.attn_k.weight", []uint64{u(e), headDim}, k},
		{"blk.0.attn_k.bias", []uint64{headDim}, make([]float32, headDim)},
		{"blk.0.attn_v.weight", []uint64{u(e), headDim}, v},
		{"blk.0.attn_v.bias", []uint64{headDim}, make([]float32, headDim)},
		{"blk.0.attn_output.weight", []uint64{u(e), u(e)}, o},
		{"blk.0.ffn_norm.weight", []uint64{u(e)}, ones(e)},
		{"blk.0.ffn_gate.weight", []uint64{u(e), u(ff)}, make([]float32, ff*e)},
		{"blk.0.ffn_up.weight", []uint64{u(e), u(ff)}, make([]float32, ff*e)},
		{"blk.0.ffn_down.weight", []uint64{u(ff), u(e)}, make([]float32, e*ff)},
		{"output_norm.weight", []uint64{u(e)}, ones(e)},
		{"output.weight", []uint64{u(e), u(nv)}, out},
	}
}

// byteLevel encodes text as GPT-2's byte-level BPE writes token texts: each
// byte as one printable rune (printable Latin-1 bytes as themselves, the rest
// as U+0100 onwards, in byte order), so " " is "Ġ" and "\n" is "Ċ".
func byteLevel(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		b.WriteRune(byteRune[text[i]])
	}
	return b.String()
}

var byteRune = func() (r [256]rune) {
	n := rune(0)
	for c := range 256 {
		if c >= '!' && c <= '~' || c >= 0xA1 && c <= 0xAC || c >= 0xAE {
			r[c] = rune(c)
		} else {
			r[c] = 0x100 + n
			n++
		}
	}
	return r
}()
