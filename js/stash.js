// The stash: functions (execute, approve, generate) never cross the channel; they stay
// here and the engine sees their integer ids (-1 for none), as in esbuild's ObjectStash.

class ObjectStash {
  #map = new Map();
  #next = 1;
  store(value) {
    if (value === undefined) return -1;
    const id = this.#next++;
    this.#map.set(id, value);
    return id;
  }
  get(id) {
    return this.#map.get(id);
  }
  delete(id) {
    this.#map.delete(id);
  }
}

export const stash = new ObjectStash();
