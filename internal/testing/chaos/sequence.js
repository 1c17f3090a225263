// The order in which a chaos run's page saw the module's messages, recorded and replayed
// (the worker-mode races were found by chance, and replayed so). With the module in a Worker, what the module wrote can be on its way while
// the page acts (aborts, destroys, checks an invariant), so a seed alone replays a run's
// schedule but not its races. sequenced() stands between the face and the module's port
// (the face takes it as globalThis.__langmodel_channel): it counts the messages that
// decide a run's course as the page receives them, and the page marks its points with
// at(step, point): "start" as each step begins, then its acts and checks.
//
//   - Recording (no replay given), at() notes how many of those messages the page had
//     received since its step's start at each point, and returns nothing: the run's
//     timing is untouched.
//   - Replaying a recording, within a step the port delivers messages only up to the
//     count of the step's next point, and at() waits until exactly that many have arrived
//     before the page goes on: each act and check sees what it saw in the recorded run,
//     whatever the threads' timing. Counts start again at every step, so a step that
//     went a little differently (one retry more) does not shift the ones after it.
//     Between steps (after a step's last point, before the next step's start) messages
//     pass freely: what arrives then is the last step's tail. A point whose count does not
//     come, or one reached out of order, ends the replay of that step (its messages pass
//     freely), and diverged() lists where. A point waits for as long as counted messages
//     keep coming, and gives up once none has come for QUIET_MS.
//
// Only the messages whose order decides the page's view count: replies, tool calls and
// approvals, and their aborts. The fetches the engine asks for, stream chunks and events
// pass in order between them without counting: how many there are depends on the
// network and the engine's retry timers, not on what the page did.
//
// A replay can also stall: the page may wait (for a prompt to settle) on a message held
// for a point it will never reach, when the step went otherwise. The port then gives the
// step up once nothing has moved for QUIET_MS while messages are held.

const DECISIVE = new Set(["reply", "tool-execute", "tool-approve", "tool-abort"]);
const QUIET_MS = 1000; // how long a point waits for a module that sends nothing

export function sequenced(port, replay) {
  let receive = null;
  let seen = 0; // decisive messages delivered
  let base = 0; // seen at the current step's start
  const held = []; // messages held back in replay, in order
  const log = []; // [step, point, seen - base]
  const plan = replay ? new Map() : null; // step → its points [point, count], in order
  if (replay) for (const [step, point, n] of replay) plan.has(step) ? plan.get(step).push([point, n]) : plan.set(step, [[point, n]]);
  let points = []; // the current step's points still to come (replay)
  const diverged = [];
  let waiting = [];

  // limit is how many decisive messages may be delivered before the step's next point.
  const limit = () => (points.length > 0 ? base + points[0][1] : Infinity);
  let stall = null; // the timer that gives a step up when held messages stop moving
  let current = -1; // the step under way
  const pump = () => {
    let moved = false;
    while (held.length > 0 && !(DECISIVE.has(held[0].type) && seen >= limit())) {
      const m = held.shift();
      if (DECISIVE.has(m.type)) seen++;
      receive(JSON.stringify([m]));
      moved = true;
    }
    for (const w of waiting.splice(0)) w();
    if (moved || held.length === 0) {
      clearTimeout(stall);
      stall = null;
    }
    if (held.length > 0 && stall === null) {
      stall = setTimeout(() => {
        stall = null;
        if (held.length > 0 && points.length > 0) giveUp(`at step ${current} the page waited on messages held for its ${points[0][0]}, which it did not reach`);
      }, QUIET_MS);
    }
  };
  const giveUp = (why) => {
    diverged.push(why);
    points = [];
    pump();
  };

  const wrapped = {
    get remote() {
      return port.remote;
    },
    send: (json, attach) => port.send(json, attach),
    query: (json) => port.query(json),
    pace: port.pace ? () => port.pace() : undefined,
    close: () => port.close?.(),
    connect(r) {
      receive = r;
      port.connect((text) => {
        if (!plan) {
          for (const m of JSON.parse(text)) if (DECISIVE.has(m.type)) seen++;
          receive(text);
          return;
        }
        for (const m of JSON.parse(text)) held.push(m); // a batch can hold a huge stream's every chunk
        pump();
      });
    },
  };

  // at marks the page's point (step, point): recorded, or in replay waited for.
  const at = (step, point) => {
    if (point === "start") {
      if (points.length > 0) giveUp(`step ${step - 1} ended before its ${points[0][0]}`);
      base = seen;
      current = step;
      if (!plan) return undefined;
      points = (plan.get(step) ?? []).filter(([p]) => p !== "start");
      return undefined;
    }
    if (!plan) {
      log.push([step, point, seen - base]);
      return undefined;
    }
    if (points.length === 0) return undefined; // this step's replay has ended
    const [want, n] = points[0];
    if (want !== point) {
      giveUp(`at step ${step} the page reached its ${point} where the recording had its ${want}`);
      return undefined;
    }
    const there = () => {
      log.push([step, point, seen - base]);
      points.shift();
      queueMicrotask(pump); // what waits beyond this point, once the page has gone on
    };
    // There already: the page goes on at once, as it did (an act in the same task as its
    // prompt() must find the request unsent, as in the recorded run).
    if (seen >= base + n) return void there();
    return new Promise((resolve) => {
      // The module has gone quiet short of the count: this step went otherwise.
      const quiet = () => {
        waiting = waiting.filter((w) => w !== check);
        giveUp(`at step ${step} (${point}) the page had ${seen - base} of the ${n} messages the recording had`);
        resolve();
      };
      let timer = setTimeout(quiet, QUIET_MS);
      let had = seen;
      const check = () => {
        if (seen < base + n) {
          if (seen !== had) { // progress: wait on (stream chunks alone are no progress)
            had = seen;
            clearTimeout(timer);
            timer = setTimeout(quiet, QUIET_MS);
          }
          waiting.push(check);
          return;
        }
        clearTimeout(timer);
        there();
        resolve();
      };
      check();
    });
  };

  return { port: wrapped, at, log, diverged: () => diverged.join("; ") };
}
