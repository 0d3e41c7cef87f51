// deeppage's kernels: the module's whole ABI. See README.md beside this file.
export { alloc, mark, release, reset } from "./arena";
export { topK } from "./topk";
export { mergeRuns } from "./merge";
export { rankSelect } from "./rank";
export { sumKeys } from "./scan";
