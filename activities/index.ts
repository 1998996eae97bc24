export { createActivities, resultPreviewChars, type ActivityDependencies, type AgentTools } from './create-activities';
export { implementTool, ToolFailure, type ToolContext, type ToolImplementation, type SessionStateAccess } from './tool-implementation';
