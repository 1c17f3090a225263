//go:build !js

package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"langmodel/internal/browsertest"
)

func TestTmpPackConcat(t *testing.T) {
	p := browsertest.Shared(t).Open(t, serve(t, "")+"/")
	var out any
	require.NoError(t, p.Eval(t.Context(), `
		const msgs = [{ role: "system", content: "You are a benchmark." }];
		for (let i = 1; i < 10000; i++) msgs.push({ role: i % 2 ? "user" : "assistant", content: "message " + i + " of the history" });
		const join = () => { const pieces = new Array(msgs.length * 4); for (let i = 0; i < msgs.length; i++) { const m = msgs[i]; pieces[i*4] = m.role[0]; pieces[i*4+1] = m.content.length; pieces[i*4+2] = ":"; pieces[i*4+3] = m.content; } return pieces.join(""); };
		const concat = () => { let out = ""; for (let i = 0; i < msgs.length; i++) { const m = msgs[i]; out += m.role[0] + m.content.length + ":" + m.content; } return out; };
		const concat2 = () => { let out = ""; for (let i = 0; i < msgs.length; i++) { const m = msgs[i]; out += m.role[0]; out += m.content.length; out += ":"; out += m.content; } return out; };
		const buf = new Uint8Array(1 << 22);
		const enc = new TextEncoder();
		const time = (f) => { const t0 = performance.now(); for (let k = 0; k < 50; k++) { const s = f(); enc.encodeInto(s, buf); } return (performance.now() - t0) / 50; };
		const timeBuild = (f) => { const t0 = performance.now(); for (let k = 0; k < 50; k++) { f(); } return (performance.now() - t0) / 50; };
		const r = {};
		for (let round = 0; round < 3; round++) { r.join = time(join); r.concat = time(concat); r.concat2 = time(concat2); r.joinBuild = timeBuild(join); r.concatBuild = timeBuild(concat); }
		return r;`, &out))
	fmt.Println(out)
}
