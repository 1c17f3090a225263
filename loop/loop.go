// Package loop is what a conversation DOES over time: it asks a Model for one step at a
// time, runs the tool calls a step asks for through a ToolRunner (closed loop), hands them
// back to the page (open loop) or both (hybrid), enforces toolUseConfig, queues concurrent
// prompts in call order, aborts, and reports each step as events.
//
// It owns the two ports every backend and host plugs into: Model (model.go) and
// ToolRunner (tools.go). Backends live in folders below it and import loop and session,
// never each other. loop never imports syscall/js or net/http: the binding in wasm/ and
// the backends bring their I/O through these ports (DESIGN.md §2).
package loop
