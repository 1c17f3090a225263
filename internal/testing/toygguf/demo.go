package toygguf

// Clock is the demo's built-in offline model (demo/serve writes it at start):
// it asks the demo's get_current_time tool for Tokyo's time, and after the
// result says where the answer is. Its context is 8192 tokens, as the demo's
// six tools, rendered byte for byte, take about 3000.
var Clock = Script{
	Calls:         []Call{{Name: "get_current_time", Arguments: `{"timeZone": "Asia/Tokyo"}`}},
	After:         "That is the time in Tokyo, as the tool card above shows: this toy model only ever asks for it.",
	ContextLength: 8192,
}
