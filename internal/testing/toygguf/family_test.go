package toygguf

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFamily_Decodes: each family's model writes its call in the family's
// syntax after the family's generation prompt, and its answer once the
// prompt holds the family's tool result token; a call written inside
// <think> is written as the family writes it, the answer after.
func TestFamily_Decodes(t *testing.T) {
	weather := func(f *Family) Script {
		return Script{Family: f, Calls: Weather.Calls, After: Weather.After}
	}
	chatml := "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n"
	for _, tc := range []struct {
		name          string
		script        Script
		prompt, after string // a user turn, and one after a tool result (for After), each with the generation prompt
		want          string
	}{
		{"Qwen2.5", weather(Qwen25), chatml, "<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
			"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"},
		{"Qwen3, thinking first", Script{Family: Qwen3, Think: "Call the tool.", Calls: Weather.Calls, After: Weather.After}, chatml,
			"<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
			"<think>Call the tool.</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"},
		{"Qwen3-Coder", weather(Qwen3Coder), chatml, "<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
			"<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"},
		{"Llama 3.2", weather(Llama32), "<|start_header_id|>user<|end_header_id|>\n\nWeather?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
			"<|start_header_id|>ipython<|end_header_id|>\n\nsunny<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
			"{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}"},
		{"Gemma 3", weather(Gemma3), "<start_of_turn>user\nWeather?<end_of_turn>\n<start_of_turn>model\n",
			"<start_of_turn>user\n```tool_result\n{}\n```<end_of_turn>\n<start_of_turn>model\n",
			"```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n```"},
		{"Gemma 4", weather(Gemma4), "<|turn>user\nWeather?<turn|>\n<|turn>model\n",
			"<|turn>user\n<|tool_response>response:get_weather{}<tool_response|><turn|>\n<|turn>model\n",
			"<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>}<tool_call|>"},
		{"LFM2", weather(LFM2), chatml, "<|im_start|>tool\n<|tool_response_start|>sunny<|tool_response_end|><|im_end|>\n<|im_start|>assistant\n",
			"<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>"},
		{"Phi-4-mini", weather(Phi4Mini), "<|user|>Weather?<|end|><|assistant|>", "<|user|>```tool_result\n{}\n```<|end|><|assistant|>",
			"<|tool_call|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}<|/tool_call|>"},
		{"SmolLM3, thinking first", Script{Family: SmolLM3, Think: "Call the tool.", Calls: Weather.Calls, After: Weather.After}, chatml,
			"<|im_start|>user\n```tool_result\n{}\n```<|im_end|>\n<|im_start|>assistant\n",
			"<think>Call the tool.</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"},
		{"Hermes 2 Pro", weather(Hermes2Pro), chatml, "<|im_start|>tool\n<tool_response>\n{}\n</tool_response><|im_end|>\n<|im_start|>assistant\n",
			"<tool_call>\n{\"arguments\": {\"city\": \"Paris\"}, \"name\": \"get_weather\"}\n</tool_call>"},
		{"Mistral Nemo", weather(MistralNemo), "<s>[INST]Weather?[/INST]",
			"<s>[INST]Weather?[/INST][TOOL_CALLS][]</s>[TOOL_RESULTS]{}[/TOOL_RESULTS]",
			"[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"a1b2c3d4e\"}]"},
		{"DeepSeek-R1 distill: inside the <think> its prompt opened", Script{Family: DeepSeekR1, Think: "Call the tool.", Calls: Weather.Calls, After: Weather.After},
			"<｜User｜>Weather?<｜Assistant｜><think>\n", "<｜User｜>```tool_result\n{}\n```<｜Assistant｜><think>\n",
			"Call the tool.</think>\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
		{"a call inside <think>, then text", Script{Family: Hermes2Pro, Think: "<tool_call>\n{\"arguments\": {}, \"name\": \"get_weather\"}\n</tool_call>", Text: "No tool is needed."},
			chatml, "", "<think><tool_call>\n{\"arguments\": {}, \"name\": \"get_weather\"}\n</tool_call></think>\n\nNo tool is needed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Bytes(tc.script)
			require.NoError(t, err)
			fw := newForward(t, b)
			require.Equal(t, tc.want, fw.generate(tc.prompt))
			if tc.script.After != "" {
				want := tc.script.After
				if tc.script.Family.OpensThink {
					want = AfterThought + want
				}
				require.Equal(t, want, fw.generate(tc.after))
			}
		})
	}
}

// TestFamily_Templates: each template has the shape that makes the family
// what it is to the module and to llama.cpp.
func TestFamily_Templates(t *testing.T) {
	for _, tc := range []struct {
		family      *Family
		has, hasNot []string
	}{
		{Qwen25, []string{"tool | tojson", "<tool_call>", "<tool_response>"}, nil},
		{Qwen3, []string{"reasoning_content", "<tool_call>"}, nil},
		{Qwen3Coder, []string{"<function=", "<parameter=", "| items"}, nil},
		{Llama32, []string{`"parameters": `, "ipython", "tool | tojson"}, nil},
		{Gemma3, []string{"raise_exception('Conversation roles must alternate"}, []string{"tools", "tool_calls"}},
		{Gemma4, []string{`'<|tool_call>call:'`, `<|"|>`}, nil},
		{LFM2, []string{"<|tool_list_start|>", "<|tool_list_end|>", "<|tool_call_start|>["}, nil},
		{Phi4Mini, []string{"message.tools"}, []string{"tool_calls", "{%- for tool in tools"}},
		{SmolLM3, []string{"xml_tools", "When you are given tools"}, []string{"tool_calls", "{%- for tool in tools"}},
		{Hermes2Pro, []string{`{"arguments": `, "raise_exception('A tool message must carry the name of its tool')"}, nil},
		{MistralNemo, []string{"[TOOL_CALLS][", "raise_exception('Tool call ids must be nine letters or digits"}, nil},
		{DeepSeekR1, []string{"<｜tool▁calls▁begin｜>", "<｜Assistant｜><think>\\n"}, []string{"tools"}},
	} {
		t.Run(tc.family.Name, func(t *testing.T) {
			for _, s := range tc.has {
				require.Contains(t, tc.family.Template, s)
			}
			for _, s := range tc.hasNot {
				require.NotContains(t, tc.family.Template, s)
			}
			require.Contains(t, Families, tc.family)
			_, err := Bytes(Script{Family: tc.family, Calls: Weather.Calls, After: Weather.After})
			require.NoError(t, err)
		})
	}
	require.Len(t, Families, 12)
	require.True(t, strings.HasPrefix(Qwen25.Template, "{%- if tools %}"))
}
