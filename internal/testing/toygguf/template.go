package toygguf

import "strings"

// QwenTemplate is Qwen2.5-Instruct's chat template with its tools section
// (tokenizer_config.json's chat_template), as data: llama.cpp recognises its
// <tool_call> format (Hermes 2 Pro) and parses the model's calls into OpenAI
// tool calls. A tool result is rendered inside <tool_response>, the token the
// model's flag head looks for.
const QwenTemplate = `{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>' + '\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {{- message.content }}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
`

// ChatMLTemplate is a chat template without tools: each message as
// <|im_start|>role, its content, <|im_end|>, then the generation prompt. With
// it llama.cpp has no tool-call format of its own for the model.
const ChatMLTemplate = `{%- for message in messages %}
    {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
`

// ThinkTemplate is QwenTemplate with Qwen3's rendering of what an assistant
// message thought (its reasoning_content, sent back under keepReasoning) in a
// <think> block before its content or calls.
var ThinkTemplate = strings.Replace(QwenTemplate, `{%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}`, `{%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.reasoning_content %}
            {{- '\n<think>\n' + message.reasoning_content + '\n</think>\n' }}
        {%- endif %}`, 1)

// The families' templates (family.go). Each is the project's own, written to
// the family's published syntax; a call's function is read through
// tool_call.function where the message has it.

// qwen3CoderTemplate renders the tool list as <function> elements and each
// call in the XML that Qwen3-Coder writes.
const qwen3CoderTemplate = `{%- if tools %}
    {{- '<|im_start|>system\nYou can call these functions:\n<tools>' }}
    {%- for tool in tools %}
        {%- set f = tool.function if tool.function is defined else tool %}
        {{- '\n<function><name>' + f.name + '</name><description>' + (f.description or '') + '</description><parameters>' + (f.parameters | tojson) + '</parameters></function>' }}
    {%- endfor %}
    {{- '\n</tools>\nTo call one, write <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call><|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == "assistant" %}
        {{- '<|im_start|>assistant\n' + (message.content or '') }}
        {%- for tool_call in message.tool_calls or [] %}
            {%- set call = tool_call.function if tool_call.function is defined else tool_call %}
            {{- '<tool_call>\n<function=' + call.name + '>\n' }}
            {%- for name, value in call.arguments | items %}
                {{- '<parameter=' + name + '>\n' }}
                {%- if value is string %}{{- value }}{%- else %}{{- value | tojson }}{%- endif %}
                {{- '\n</parameter>\n' }}
            {%- endfor %}
            {{- '</function>\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {{- '<|im_start|>user\n<tool_response>\n' + message.content + '\n</tool_response><|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
`

// llama32Template renders the tool list in the system turn and each call as
// the JSON {"name", "parameters"} that Llama 3.2 writes; tool results are the
// ipython role's.
const llama32Template = `{{- '<|begin_of_text|>' }}
{%- if tools %}
    {{- '<|start_header_id|>system<|end_header_id|>\n\nTo call a function, answer with the JSON {"name": function name, "parameters": its arguments}. The functions:\n' }}
    {%- for tool in tools %}
        {{- (tool | tojson) + '\n' }}
    {%- endfor %}
    {{- '<|eot_id|>' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == "assistant" and message.tool_calls %}
        {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
        {%- for tool_call in message.tool_calls %}
            {%- set call = tool_call.function if tool_call.function is defined else tool_call %}
            {{- '{"name": "' + call.name + '", "parameters": ' + (call.arguments | tojson) + '}' }}
        {%- endfor %}
        {{- '<|eot_id|>' }}
    {%- elif message.role == "tool" %}
        {{- '<|start_header_id|>ipython<|end_header_id|>\n\n' + message.content + '<|eot_id|>' }}
    {%- else %}
        {{- '<|start_header_id|>' + message.role + '<|end_header_id|>\n\n' + message.content + '<|eot_id|>' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\n\n' }}
{%- endif %}
`

// gemma3Template has no tools: a system message joins the first user turn,
// and the turns must alternate, user first, as Gemma 3's require.
const gemma3Template = `{{- '<bos>' }}
{%- set first = messages[0].content + '\n\n' if messages[0].role == 'system' else '' %}
{%- set turns = messages[1:] if messages[0].role == 'system' else messages %}
{%- for message in turns %}
    {%- if (message.role == 'user') != (loop.index0 % 2 == 0) %}
        {{- raise_exception('Conversation roles must alternate user/model/user/model, starting with user') }}
    {%- endif %}
    {{- '<start_of_turn>' + ('model' if message.role == 'assistant' else 'user') + '\n' + (first if loop.first else '') + message.content + '<end_of_turn>\n' }}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<start_of_turn>model\n' }}
{%- endif %}
`

// gemma4Template renders the tool list in <|tool> declarations and each call
// as Gemma 4's '<|tool_call>call:' NAME{key:value}, strings between <|"|>, and
// its results in the model's turn (llama.cpp hands a Gemma 4 template the tool
// messages as the assistant message's tool_responses).
const gemma4Template = `{{- '<bos>' }}
{%- if tools %}
    {{- '<|turn>system\n' }}
    {%- for tool in tools %}
        {{- '<|tool>' + (tool | tojson) + '<tool|>' }}
    {%- endfor %}
    {{- '<turn|>\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'assistant' %}
        {{- '<|turn>model\n' + (message.content or '') }}
        {%- for tool_call in message.tool_calls or [] %}
            {%- set call = tool_call.function if tool_call.function is defined else tool_call %}
            {{- '<|tool_call>call:' + call.name + '{' }}
            {%- for name, value in call.arguments | items %}
                {{- name + ':' }}
                {%- if value is string %}{{- '<|"|>' + value + '<|"|>' }}{%- else %}{{- value | tojson }}{%- endif %}
                {%- if not loop.last %}{{- ',' }}{%- endif %}
            {%- endfor %}
            {{- '}<tool_call|>' }}
        {%- endfor %}
        {%- for response in message.tool_responses or [] %}
            {{- '<|tool_response>response:' + response.name + '{value:' + (response.response | tojson) + '}<tool_response|>' }}
        {%- endfor %}
        {{- '<turn|>\n' }}
    {%- elif message.role == 'tool' %}
        {{- '<|turn>user\n<|tool_response>response:' + (message.name or 'tool') + '{value:<|"|>' + message.content + '<|"|>}<tool_response|><turn|>\n' }}
    {%- else %}
        {{- '<|turn>' + message.role + '\n' + message.content + '<turn|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|turn>model\n' }}
{%- endif %}
`

// lfm2Template renders the tool list between <|tool_list_start|> and
// <|tool_list_end|>, and calls as LFM2's Python list between
// <|tool_call_start|> and <|tool_call_end|>.
const lfm2Template = `{%- if tools %}
    {{- '<|im_start|>system\nList of tools: <|tool_list_start|>[' }}
    {%- for tool in tools %}
        {{- tool | tojson }}
        {%- if not loop.last %}{{- ', ' }}{%- endif %}
    {%- endfor %}
    {{- ']<|tool_list_end|><|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'assistant' %}
        {{- '<|im_start|>assistant\n' + (message.content or '') }}
        {%- if message.tool_calls %}
            {{- '<|tool_call_start|>[' }}
            {%- for tool_call in message.tool_calls %}
                {%- set call = tool_call.function if tool_call.function is defined else tool_call %}
                {{- call.name + '(' }}
                {%- for name, value in call.arguments | items %}
                    {{- name + '=' + (value | tojson) }}
                    {%- if not loop.last %}{{- ', ' }}{%- endif %}
                {%- endfor %}
                {{- ')' }}
                {%- if not loop.last %}{{- ', ' }}{%- endif %}
            {%- endfor %}
            {{- ']<|tool_call_end|>' }}
        {%- endif %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == 'tool' %}
        {{- '<|im_start|>tool\n<|tool_response_start|>' + message.content + '<|tool_response_end|><|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
`

// phi4MiniTemplate names tools only as a system message's own key, as
// Phi-4-mini's does: the request's tools and an assistant's calls are never
// rendered.
const phi4MiniTemplate = `{%- for message in messages %}
    {%- if message.role == 'system' and message.tools is defined and message.tools %}
        {{- '<|system|>' + message.content + '<|tool|>' + message.tools + '<|/tool|><|end|>' }}
    {%- else %}
        {{- '<|' + message.role + '|>' + (message.content or '') + '<|end|>' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|assistant|>' }}
{%- else %}
    {{- '<|endoftext|>' }}
{%- endif %}
`

// smolLM3Template speaks of tools in prose and renders them only under its
// own xml_tools variable, as SmolLM3's does by default: the request's tools
// and an assistant's calls are never rendered.
const smolLM3Template = `{{- '<|im_start|>system\n## Metadata\n\nReasoning Mode: /think\n\n## Custom Instructions\n\nYou are a helpful AI assistant. When you are given tools, call them inside <tool_call></tool_call> tags.\n' }}
{%- if xml_tools %}
    {{- '### Tools\n' }}
    {%- for tool in xml_tools %}
        {{- (tool | tojson) + '\n' }}
    {%- endfor %}
{%- endif %}
{%- if messages[0].role == 'system' %}
    {{- '\n' + messages[0].content }}
{%- endif %}
{{- '<|im_end|>\n' }}
{%- for message in messages %}
    {%- if message.role != 'system' %}
        {{- '<|im_start|>' + message.role + '\n' + (message.content or '') + '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
`

// hermes2ProTemplate renders the tool list in <tools> and calls as Hermes 2
// Pro writes them, arguments first; a tool message needs its tool's name.
const hermes2ProTemplate = `{%- if tools %}
    {{- '<|im_start|>system\nYou are a function calling AI model. The function signatures are within <tools></tools> XML tags:\n<tools>' }}
    {%- for tool in tools %}
        {{- '\n' + (tool | tojson) }}
    {%- endfor %}
    {{- '\n</tools>\nFor each call, return a JSON object with the arguments and the function name within <tool_call></tool_call> XML tags.<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'assistant' %}
        {{- '<|im_start|>assistant\n' + (message.content or '') }}
        {%- for tool_call in message.tool_calls or [] %}
            {%- set call = tool_call.function if tool_call.function is defined else tool_call %}
            {{- '<tool_call>\n{"arguments": ' + (call.arguments | tojson) + ', "name": "' + call.name + '"}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == 'tool' %}
        {%- if message.name is not defined or not message.name %}
            {{- raise_exception('A tool message must carry the name of its tool') }}
        {%- endif %}
        {{- '<|im_start|>tool\n<tool_response>\n{"name": "' + message.name + '", "content": ' + (message.content | tojson) + '}\n</tool_response><|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
`

// mistralNemoTemplate renders the tool list in [AVAILABLE_TOOLS] and calls as
// [TOOL_CALLS] and a JSON list with their ids, and raises, as Mistral's does,
// on a call id or a tool result's call id that is not nine characters long
// (or holds "_", "-" or a space: llama.cpp's templates cannot loop over a
// string's characters).
const mistralNemoTemplate = `{%- macro check(id) %}
    {%- if id is not string or id | length != 9 or '_' in id or '-' in id or ' ' in id %}
        {{- raise_exception('Tool call ids must be nine letters or digits, not ' + (id | string)) }}
    {%- endif %}
{%- endmacro %}
{{- '<s>' }}
{%- if tools %}
    {{- '[AVAILABLE_TOOLS]' + (tools | tojson) + '[/AVAILABLE_TOOLS]' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'assistant' and message.tool_calls %}
        {{- '[TOOL_CALLS][' }}
        {%- for tool_call in message.tool_calls %}
            {{- check(tool_call.id) }}
            {%- set call = tool_call.function if tool_call.function is defined else tool_call %}
            {{- '{"name": "' + call.name + '", "arguments": ' + (call.arguments | tojson) + ', "id": "' + tool_call.id + '"}' }}
            {%- if not loop.last %}{{- ', ' }}{%- endif %}
        {%- endfor %}
        {{- ']</s>' }}
    {%- elif message.role == 'assistant' %}
        {{- message.content + '</s>' }}
    {%- elif message.role == 'tool' %}
        {{- check(message.tool_call_id) }}
        {{- '[TOOL_RESULTS]{"content": ' + (message.content | tojson) + ', "call_id": "' + message.tool_call_id + '"}[/TOOL_RESULTS]' }}
    {%- else %}
        {{- '[INST]' + message.content + '[/INST]' }}
    {%- endif %}
{%- endfor %}
`

// deepSeekR1Template never names the request's tools, drops what an
// assistant message thought, renders calls in DeepSeek's tokens, and opens
// <think> in its generation prompt, as DeepSeek-R1 distills' do.
const deepSeekR1Template = `{{- '<｜begin▁of▁sentence｜>' }}
{%- for message in messages %}
    {%- if message.role == 'system' %}
        {{- message.content }}
    {%- elif message.role == 'user' %}
        {{- '<｜User｜>' + message.content }}
    {%- elif message.role == 'assistant' %}
        {%- set content = message.content or '' %}
        {%- if '</think>' in content %}
            {%- set content = content.split('</think>')[-1] %}
        {%- endif %}
        {{- '<｜Assistant｜>' + content }}
        {%- if message.tool_calls %}
            {{- '<｜tool▁calls▁begin｜>' }}
            {%- for tool_call in message.tool_calls %}
                {%- set call = tool_call.function if tool_call.function is defined else tool_call %}
                {{- '<｜tool▁call▁begin｜>function<｜tool▁sep｜>' + call.name + '\n` + "```" + `json\n' + (call.arguments | tojson) + '\n` + "```" + `<｜tool▁call▁end｜>' }}
            {%- endfor %}
            {{- '<｜tool▁calls▁end｜>' }}
        {%- endif %}
        {{- '<｜end▁of▁sentence｜>' }}
    {%- else %}
        {{- '<｜User｜>' + message.content }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<｜Assistant｜><think>\n' }}
{%- endif %}
`
