export { FakeOpenAIServer } from './fake-openai-server';
export {
  say,
  callTools,
  toolCall,
  rateLimited,
  serverError,
  badRequest,
  contextLengthExceeded,
  dynamic,
  defaultFakeUsage,
  type FakeStep,
  type FakeToolCall,
  type FakeUsage,
  type RecordedRequest,
} from './fake-openai-script';
export { parseChatRequest, toolPairingProblem, type FakeChatRequest, type FakeChatMessage } from './fake-openai-request';
