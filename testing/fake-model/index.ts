export { FakeOpenAIServer } from './fake-openai-server';
export {
  say,
  callTools,
  toolCall,
  rateLimited,
  serverError,
  badRequest,
  contextLengthExceeded,
  llamaContextOverflow,
  validationError500,
  cutOff,
  emptyBody,
  stall,
  dynamic,
  defaultFakeUsage,
  type FakeStep,
  type FakeAnswer,
  type FakeQuirks,
  type FakeToolCall,
  type FakeUsage,
  type RecordedRequest,
} from './fake-openai-script';
export { parseChatRequest, toolPairingProblem, nullContentProblem, type FakeChatRequest, type FakeChatMessage } from './fake-openai-request';
