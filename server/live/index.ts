export { LiveHub, type LiveHubOptions, type LiveHubStats } from './live-hub';
export { liveRoutes, eventFrames } from './routes';
export { chatRoutes } from './chat';
export { agUiRoutes } from './ag-ui-route';
export { UiMessageProjection, type UiMessageChunk } from './ui-message-stream';
export { handleControlMessage, controlEnvelopeSchema, type ControlResult, type ControlType } from './control-messages';
export type { FeedItem } from './feed-item';
export type { WebSocketOut } from './websocket';
