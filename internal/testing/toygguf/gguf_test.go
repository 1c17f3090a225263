package toygguf

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ggufFile is a GGUF file read back: an independent reader of the container
// (ggml's docs/gguf.md), so that the writer is checked against the format,
// not against itself.
type ggufFile struct {
	version   uint32
	meta      map[string]any
	keys      []string // in file order
	tensors   []tensorInfo
	dataStart int
	data      []byte
}

type tensorInfo struct {
	name   string
	dims   []uint64
	typ    uint32
	offset uint64
}

// f32 returns a tensor's values.
func (f *ggufFile) f32(name string) []float32 {
	for _, t := range f.tensors {
		if t.name != name {
			continue
		}
		n := uint64(1)
		for _, d := range t.dims {
			n *= d
		}
		raw := f.data[f.dataStart+int(t.offset):][:n*4]
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return out
	}
	panic("no tensor " + name)
}

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.off+n > len(r.b) {
		r.err = fmt.Errorf("truncated at %d (want %d more bytes)", r.off, n)
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) str() string { return string(r.take(int(r.u64()))) }

func (r *reader) value(typ uint32) any {
	switch typ {
	case typeUint32:
		return r.u32()
	case typeInt32:
		return int32(r.u32())
	case typeFloat32:
		return math.Float32frombits(r.u32())
	case typeBool:
		p := r.take(1)
		return p != nil && p[0] != 0
	case typeString:
		return r.str()
	case typeArray:
		elem, n := r.u32(), r.u64()
		switch elem {
		case typeString:
			out := []string{}
			for range n {
				out = append(out, r.str())
			}
			return out
		case typeInt32:
			out := []int32{}
			for range n {
				out = append(out, int32(r.u32()))
			}
			return out
		}
		r.err = fmt.Errorf("array of type %d", elem)
	default:
		r.err = fmt.Errorf("value type %d", typ)
	}
	return nil
}

func readGGUF(b []byte) (*ggufFile, error) {
	r := &reader{b: b}
	if string(r.take(4)) != Magic {
		return nil, errors.New("no GGUF magic")
	}
	f := &ggufFile{version: r.u32(), meta: map[string]any{}, data: b}
	nt, nkv := r.u64(), r.u64()
	for range nkv {
		k := r.str()
		f.meta[k] = r.value(r.u32())
		f.keys = append(f.keys, k)
	}
	for range nt {
		t := tensorInfo{name: r.str()}
		nd := r.u32()
		for range nd {
			t.dims = append(t.dims, r.u64())
		}
		t.typ, t.offset = r.u32(), r.u64()
		f.tensors = append(f.tensors, t)
	}
	if r.err != nil {
		return nil, r.err
	}
	f.dataStart = int(alignUp(uint64(r.off)))
	return f, nil
}

func TestWrite_Parses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script Script
		nEmbd  uint32
	}{
		{"a text answer", Hello, 64},
		{"a call then an answer", Weather, 64},
		{"text before a call", WeatherWithText, 64},
		{"two calls in one turn", TwoCalls, 64},
		// 71 pieces (each with a successor: the last has <|im_end|>), the newline,
		// <tool_response>, the shared dimension and the flag: two heads.
		{"a long answer", Script{Text: longText(71)}, 128},
		{"a template without tools and a context of 512", Script{Text: "Hi there.", Template: ChatMLTemplate, ContextLength: 512}, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Bytes(tc.script)
			require.NoError(t, err)
			again, err := Bytes(tc.script)
			require.NoError(t, err)
			require.True(t, bytes.Equal(b, again), "the same script writes the same bytes")
			f, err := readGGUF(b)
			require.NoError(t, err)

			require.Equal(t, uint32(3), f.version)
			require.Equal(t, "qwen2", f.meta["general.architecture"])
			require.Equal(t, uint32(32), f.meta["general.alignment"])
			require.Equal(t, "gpt2", f.meta["tokenizer.ggml.model"])
			require.Equal(t, "qwen2", f.meta["tokenizer.ggml.pre"])
			require.Equal(t, false, f.meta["tokenizer.ggml.add_bos_token"])
			tokens := f.meta["tokenizer.ggml.tokens"].([]string)
			require.Len(t, f.meta["tokenizer.ggml.token_type"], len(tokens))
			ids := map[string]int{}
			for i, tok := range tokens {
				_, dup := ids[tok]
				require.False(t, dup, "%q twice", tok)
				ids[tok] = i
			}
			require.Equal(t, "Ġ", tokens[' '])
			require.Equal(t, "Ċ", tokens['\n'])
			require.Equal(t, []string{}, f.meta["tokenizer.ggml.merges"], "prompts tokenize to bytes and special tokens")
			nEmbd := f.meta["qwen2.embedding_length"].(uint32)
			require.Equal(t, tc.nEmbd, nEmbd)
			require.Equal(t, nEmbd/headDim, f.meta["qwen2.attention.head_count"])
			require.Equal(t, uint32(1), f.meta["qwen2.block_count"])
			require.Equal(t, uint32(cmp.Or(tc.script.ContextLength, 4096)), f.meta["qwen2.context_length"])
			require.Equal(t, cmp.Or(tc.script.Template, QwenTemplate), f.meta["tokenizer.chat_template"])

			var names []string
			end := uint64(0)
			for _, ti := range f.tensors {
				names = append(names, ti.name)
				require.Equal(t, ggmlTypeF32, ti.typ, ti.name)
				require.Zero(t, ti.offset%Alignment, "%s is aligned", ti.name)
				require.GreaterOrEqual(t, ti.offset, end, "%s does not overlap the one before", ti.name)
				n := uint64(4)
				for _, d := range ti.dims {
					n *= d
				}
				end = ti.offset + n
			}
			require.Equal(t, []string{"token_embd.weight", "blk.0.attn_norm.weight",
				"blk.0.attn_q.weight", "blk.0.attn_q.bias", "blk.0.attn_k.weight", "blk.0.attn_k.bias",
				"blk.0.attn_v.weight", "blk.0.attn_v.bias", "blk.0.attn_output.weight",
				"blk.0.ffn_norm.weight", "blk.0.ffn_gate.weight", "blk.0.ffn_up.weight", "blk.0.ffn_down.weight",
				"output_norm.weight", "output.weight"}, names)
			require.Equal(t, []uint64{uint64(nEmbd), uint64(len(tokens))}, f.tensors[len(f.tensors)-1].dims)
			require.Zero(t, f.dataStart%Alignment)
			require.Equal(t, f.dataStart+int(alignUp(end)), len(b), "the file ends with the last tensor, padded")
			require.Less(t, len(b), 3<<20, "a model stays small")
		})
	}
}

// longText returns n words, each new.
func longText(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(words, " ")
}
