// The exceptions the face throws: the engine's errors, which cross the channel as data
// ({name, message, fields}), become TypeErrors or DOMExceptions here and nowhere else
// (STYLE.md practice 7).

export function abortReason(signal) {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

export function destroyedError() {
  return new DOMException("The session has been destroyed.", "InvalidStateError");
}

export function setHidden(obj, key, value) {
  try {
    Object.defineProperty(obj, key, { value, writable: true, configurable: true, enumerable: false });
  } catch {
    // a frozen error: the extra is lost, the error stays right
  }
}

// makeError builds the exception for an error reply: a TypeError or a DOMException of
// the engine's name, with the extras attached (STYLE.md practice 7).
export function makeError(wire) {
  const { name = "OperationError", message = "", fields } = wire ?? {};
  let err;
  if (name === "TypeError") {
    err = new TypeError(message);
  } else if (name === "QuotaExceededError" && typeof globalThis.QuotaExceededError === "function") {
    try {
      err = new globalThis.QuotaExceededError(message, { requested: fields?.requested, quota: fields?.quota });
    } catch {
      err = undefined;
    }
  }
  err ??= new DOMException(message, name);
  if (name === "QuotaExceededError") {
    if (err.requested !== fields?.requested) setHidden(err, "requested", fields?.requested);
    if (err.quota !== fields?.quota) setHidden(err, "quota", fields?.quota);
  }
  if (fields?.transcript) setHidden(err, "transcript", fields.transcript);
  return err;
}

export function errorMessage(e) {
  if (e instanceof Error || (e && typeof e.message === "string")) return e.message || String(e.name ?? "Error");
  return String(e);
}

// ---------------------------------------------------------------- plain data
