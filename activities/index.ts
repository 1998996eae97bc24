export { createActivities, resultPreviewChars, type ActivityDependencies } from './create-activities';
export { implementTool, ToolFailure, type ToolContext, type ToolImplementation, type SessionStateAccess } from './tool-implementation';
