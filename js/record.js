// Recordings (docs/recordings.md): a session whose backend is {kind: "record", backend}
// keeps every model step the engine reports (a modelstep message per step, loop/record),
// in the order the steps ran, its clones' included (they share its model). A recording
// is the scripted backend's own configuration: {kind: "scripted", version, window,
// turns}, each turn {request, chunks?, calls?, usage?, error?, hang?}, so that
// `backend: {...recording, strict: true}` replays it.

export const RECORDING_VERSION = 1;

// startRecording gives shared a recording when the session's backend records.
export function startRecording(shared, backend, info) {
  if (backend?.kind === "record") shared.recording = { kind: "scripted", version: RECORDING_VERSION, window: info.contextWindow, turns: [] };
}

// recorded keeps one step.
export function recorded(shared, step) {
  shared.recording?.turns.push(step);
}

// recordingOf is session.recording(): a copy, for the page to keep, save or edit.
export function recordingOf(shared) {
  if (!shared.recording) throw new DOMException('This session records nothing: its backend is not {kind: "record", backend}.', "InvalidStateError");
  return structuredClone(shared.recording);
}
