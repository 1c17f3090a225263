// The state install() leaves for the sessions: install.js writes it, session.js reads it.
// It sits in a file of its own so that neither imports the other's module the wrong way
// round (install.js needs the LanguageModel class to define the globals).

export const runtime = {
  installing: null, // the promise of the install in progress or done
  installed: null, // {channel, backend, native, nativeTools, browserFn, browserToolsFn}
  progress: null, // the module's download progress, replayed to every create() monitor
  gguf: undefined, // install({backend}) when it is a GGUF model (js/gguf.js) or a chain (js/chain.js), read per create()
};

// ready waits for install() and returns what it installed.
export async function ready() {
  if (!runtime.installing) throw new DOMException("Call install() from language-model.js before using LanguageModel.", "InvalidStateError");
  await runtime.installing;
  return runtime.installed;
}
