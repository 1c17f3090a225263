// The tool classes: LanguageModelToolCall, LanguageModelToolSuccess and
// LanguageModelToolError, as Chrome's API has them (callID and callId both answered).

/** SESSION_KEY is the key, in execute's context, of the session whose call it is (js/agents.js). */
export const SESSION_KEY = Symbol("session key");

function callIDOf(init) {
  const id = init.callID ?? init.callId;
  if (typeof id !== "string" || id === "") throw new TypeError("callID must be a non-empty string");
  if (typeof init.name !== "string" || init.name === "") throw new TypeError("name must be a non-empty string");
  return id;
}

function initOf(init, rest, names) {
  if (init !== null && typeof init === "object") return init;
  if (init === undefined) throw new TypeError("missing tool call fields");
  const o = { callID: init };
  names.forEach((n, i) => (o[n] = rest[i]));
  return o;
}

/** A tool call: new LanguageModelToolCall({callID, name, arguments}) or (callID, name, arguments). */
export class LanguageModelToolCall {
  constructor(init, ...rest) {
    const o = initOf(init, rest, ["name", "arguments"]);
    this.callID = callIDOf(o);
    this.name = o.name;
    this.arguments = o.arguments ?? {};
  }
  get callId() {
    return this.callID;
  }
  toJSON() {
    return { callID: this.callID, name: this.name, arguments: this.arguments };
  }
}

/** A tool's result: new LanguageModelToolSuccess({callID, name, result}) or (callID, name, result). */
export class LanguageModelToolSuccess {
  constructor(init, ...rest) {
    const o = initOf(init, rest, ["name", "result"]);
    this.callID = callIDOf(o);
    this.name = o.name;
    if (o.result === undefined) throw new TypeError("result is required");
    this.result = o.result;
  }
  get callId() {
    return this.callID;
  }
  toJSON() {
    return { callID: this.callID, name: this.name, result: this.result };
  }
}

/** A tool's failure: new LanguageModelToolError({callID, name, errorMessage}) or (callID, name, errorMessage). */
export class LanguageModelToolError {
  constructor(init, ...rest) {
    const o = initOf(init, rest, ["name", "errorMessage"]);
    this.callID = callIDOf(o);
    this.name = o.name;
    if (typeof o.errorMessage !== "string") throw new TypeError("errorMessage must be a string");
    this.errorMessage = o.errorMessage;
  }
  get callId() {
    return this.callID;
  }
  toJSON() {
    return { callID: this.callID, name: this.name, errorMessage: this.errorMessage };
  }
}

export function resultObject(r) {
  if (!r) return r;
  return r.errorMessage !== undefined ? new LanguageModelToolError(r) : new LanguageModelToolSuccess(r);
}

// ---------------------------------------------------------------- the channel

