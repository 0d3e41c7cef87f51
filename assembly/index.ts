// deeppage's kernels: the module's whole ABI. See README.md beside this file.
export { alloc, free, allocatedBytes, allocatedBlocks } from "./heap";
export { topK } from "./topk";
export { mergeRuns } from "./merge";
export { rankSelect } from "./rank";
export { sumKeys } from "./scan";
