// Typed access to u32 arrays in linear memory, by element index.

@inline export function u32At(base: usize, i: u32): u32 {
  return load<u32>(base + ((<usize>i) << 2));
}

@inline export function setU32(base: usize, i: u32, v: u32): void {
  store<u32>(base + ((<usize>i) << 2), v);
}
