export { approvalLinkRoutes, mountApprovalPages, type ApprovalLinkSettings } from './link-routes';
export { signApprovalLink, verifyApprovalLink, type ApprovalLinkClaims, type ApprovalLinkKey, type Approver } from './link-token';
