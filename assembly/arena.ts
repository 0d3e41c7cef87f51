// A bump arena over the whole linear memory above the static data.
// Callers allocate their buffers with `alloc` and free everything with `reset`; kernels take
// scratch space above the caller's buffers and give it back before they return (mark/release),
// so a caller's pointers stay valid across kernel calls. Addresses are 16-byte aligned.

const ALIGN: usize = 16;

let base: usize = (__heap_base + ALIGN - 1) & ~(ALIGN - 1);
let top: usize = base;

/** Reserves `bytes` (rounded up to 16) and returns the address; grows memory as needed, traps if it cannot. */
export function alloc(bytes: usize): usize {
  const ptr = top;
  const end = (ptr + bytes + ALIGN - 1) & ~(ALIGN - 1);
  const have = (<usize>memory.size()) << 16;
  if (end > have) {
    const need = <i32>((end - have + 0xffff) >>> 16);
    // Double when possible so that repeated small growths stay amortized O(1).
    if (memory.grow(max(need, memory.size())) < 0 && memory.grow(need) < 0) unreachable();
  }
  top = end;
  return ptr;
}

/** The current top of the arena; pass it to `release` to free everything allocated after it. */
export function mark(): usize {
  return top;
}

export function release(at: usize): void {
  if (at >= base && at <= top) top = at;
}

/** Frees every allocation. */
export function reset(): void {
  top = base;
}
