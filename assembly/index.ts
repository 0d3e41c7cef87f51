// deeppage's kernels: the module's whole ABI. See README.md beside this file.
export { alloc, free, allocatedBytes, allocatedBlocks } from "./heap";
export { topK, topKAfter } from "./topk";
export { mergeRuns } from "./merge";
export { rankSelect } from "./rank";
export { countBetween } from "./between";
export { markedEntries } from "./marked";
export { scoreTerms } from "./score";
export { sumKeys } from "./scan";
