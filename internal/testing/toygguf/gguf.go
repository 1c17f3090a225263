package toygguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// The GGUF v3 container (ggml's docs/gguf.md): a header (magic, version,
// tensor count, metadata count), the metadata key/values, the tensor infos
// (name, dimensions innermost first, type, offset into the data section), then,
// aligned to Alignment, the tensor data, each tensor aligned to Alignment too.
// Everything is little-endian; strings are a uint64 length and the bytes.

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// Version is the GGUF version written.
const Version = 3

// Alignment is the data section's alignment (general.alignment's default,
// also written explicitly).
const Alignment = 32

// Metadata value types.
const (
	typeUint8   uint32 = 0
	typeInt8    uint32 = 1
	typeUint16  uint32 = 2
	typeInt16   uint32 = 3
	typeUint32  uint32 = 4
	typeInt32   uint32 = 5
	typeFloat32 uint32 = 6
	typeBool    uint32 = 7
	typeString  uint32 = 8
	typeArray   uint32 = 9
	typeUint64  uint32 = 10
	typeInt64   uint32 = 11
	typeFloat64 uint32 = 12
)

// ggmlTypeF32 is ggml's tensor type for 32-bit floats, the only one written.
const ggmlTypeF32 uint32 = 0

// kv is one metadata entry; value is uint32, int32, float32, bool, string,
// []string or []int32.
type kv struct {
	key   string
	value any
}

// tensor is one F32 tensor: dims innermost first (ggml's ne), data row-major
// in that order (len(data) is the product of dims).
type tensor struct {
	name string
	dims []uint64
	data []float32
}

// encoder writes little-endian GGUF values, remembering the first error.
type encoder struct {
	w   io.Writer
	n   int64
	err error
}

func (e *encoder) write(p []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(p)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) u32(v uint32) { e.write(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.write(binary.LittleEndian.AppendUint64(nil, v)) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.write([]byte(s)) }

func (e *encoder) pad() {
	if r := e.n % Alignment; r != 0 {
		e.write(make([]byte, Alignment-r))
	}
}

func (e *encoder) value(key string, v any) {
	switch v := v.(type) {
	case uint32:
		e.u32(typeUint32)
		e.u32(v)
	case int32:
		e.u32(typeInt32)
		e.u32(uint32(v))
	case float32:
		e.u32(typeFloat32)
		e.u32(math.Float32bits(v))
	case bool:
		e.u32(typeBool)
		if v {
			e.write([]byte{1})
		} else {
			e.write([]byte{0})
		}
	case string:
		e.u32(typeString)
		e.str(v)
	case []string:
		e.u32(typeArray)
		e.u32(typeString)
		e.u64(uint64(len(v)))
		for _, s := range v {
			e.str(s)
		}
	case []int32:
		e.u32(typeArray)
		e.u32(typeInt32)
		e.u64(uint64(len(v)))
		for _, x := range v {
			e.u32(uint32(x))
		}
	default:
		if e.err == nil {
			e.err = fmt.Errorf("toygguf: metadata %q: unsupported value type %T", key, v)
		}
	}
}

// writeGGUF writes a GGUF v3 file of metadata and F32 tensors to w.
func writeGGUF(w io.Writer, meta []kv, tensors []tensor) error {
	for _, t := range tensors {
		n := uint64(1)
		for _, d := range t.dims {
			n *= d
		}
		if n != uint64(len(t.data)) {
			return fmt.Errorf("toygguf: tensor %s: dims %v hold %d values, data has %d", t.name, t.dims, n, len(t.data))
		}
	}
	// The header and infos are small: build them in memory, then stream the data.
	var head bytes.Buffer
	e := &encoder{w: &head}
	e.write([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(meta)))
	for _, m := range meta {
		e.str(m.key)
		e.value(m.key, m.value)
	}
	var offset uint64
	for _, t := range tensors {
		e.str(t.name)
		e.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			e.u64(d)
		}
		e.u32(ggmlTypeF32)
		e.u64(offset)
		offset += alignUp(uint64(len(t.data)) * 4)
	}
	e.pad()
	if e.err != nil {
		return e.err
	}
	out := &encoder{w: w, n: 0}
	out.write(head.Bytes())
	buf := make([]byte, 0, 64<<10)
	for _, t := range tensors {
		for _, f := range t.data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
			if len(buf) == cap(buf) {
				out.write(buf)
				buf = buf[:0]
			}
		}
		out.write(buf)
		buf = buf[:0]
		out.pad()
	}
	return out.err
}

func alignUp(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }
