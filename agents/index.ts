export { scriptedAgent, watchlistAgent } from './definitions';
export { allToolImplementations, type AgentToolDependencies } from './implementations';
export { MemorySideEffectSink, type SideEffectSink } from './toolbox/implementation';
