export { webhookRoutes } from './webhook-route';
export { signWebhookDelivery, checkWebhookSignature, describeSignatureRefusal, webhookSignatureHeader, webhookTimestampHeader, defaultWebhookToleranceSeconds, type SignatureRefusal, type SignedDelivery } from './webhook-signature';
export { webhookMessage, isSessionAllowed, type WebhookMessage, type DeliveryRefusal } from './webhook-delivery';
