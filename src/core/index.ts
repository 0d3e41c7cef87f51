// The repository's entry to the core. The server runs on Node, so this is the Node entry (node.ts):
// the portable entry (portable.ts, the package's main one) plus reading build/deeppage.wasm.
export * from './node.ts';
