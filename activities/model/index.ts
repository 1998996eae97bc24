export { createModelActivities, type ModelActivities, type ModelActivityDependencies } from './model-activity';
export { openAIFromEnv, type OpenAIEnv } from './openai-from-env';
export { TranscriptCache, TranscriptEntry, type TranscriptCacheOptions, type TranscriptCacheStats } from './transcript-cache';
export { queryTranscriptFetcher, type TranscriptFetcher } from './transcript-query';
export { conversationFor, type Conversation } from './conversation';
export { toChatMessage, toChatMessages } from './chat-messages';
export { StreamAccumulator, completionAnswer } from './stream-accumulator';
export { providerFailure, retryAfterMs, isJsonSchemaRefusal } from './provider-errors';
export { AgentModelSpecs, agentModelSpec, jsonSchemaOf, type AgentModelSpec } from './agent-schemas';
