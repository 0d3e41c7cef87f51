// The module's allocator: AssemblyScript's TLSF (two-level segregated fit: O(1) alloc and free,
// coalescing neighbours on free), from the `minimal` runtime. No managed objects are ever created,
// so its collector has nothing to do; only the memory manager is used.
//
// Callers own what they allocate until they free it: key columns, sorted runs, run tables. Kernels
// allocate their scratch space the same way and free it before they return, so a caller's blocks
// are never moved or touched. Addresses are 16-byte aligned.
//
// Debug builds (assertions on) fill freed blocks with 0xA5 bytes, so that reading a freed block
// gives values that no test expects (a use after free shows as a wrong page, not as luck).

import { BLOCK, BLOCK_MAXSIZE, BLOCK_OVERHEAD } from "rt/common";

let inUse: usize = 0;
let blocks: u32 = 0;

/** Reserves `bytes`; traps if memory cannot grow or `bytes` exceeds the largest block (1 GiB). */
export function alloc(bytes: usize): usize {
  // Checked before any arithmetic on the size: rounded up to the block alignment, 0xFFFFFFFF wraps
  // to a 12-byte block. TLSF (AssemblyScript 0.28) checks this too, but the ABI's promise is made
  // here, not left to the library's internals. Memory that cannot grow traps in TLSF's growMemory.
  if (bytes > BLOCK_MAXSIZE) unreachable();
  const ptr = heap.alloc(bytes);
  inUse += blockSize(ptr);
  blocks++;
  return ptr;
}

/** Gives a block back; 0 is ignored. */
export function free(ptr: usize): void {
  if (ptr == 0) return;
  const size = blockSize(ptr);
  inUse -= size;
  blocks--;
  if (!ASC_NO_ASSERT) memory.fill(ptr, 0xa5, size);
  heap.free(ptr);
}

/** Bytes held by blocks not yet freed (block sizes, so a little above what was asked). */
export function allocatedBytes(): usize {
  return inUse;
}

/** Blocks not yet freed. */
export function allocatedBlocks(): u32 {
  return blocks;
}

@inline function blockSize(ptr: usize): usize {
  return changetype<BLOCK>(ptr - BLOCK_OVERHEAD).mmInfo & ~3;
}
