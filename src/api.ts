/**
 * The HTTP API's shapes in one place, for its clients (the dashboard, the tests): each module's
 * request and response schemas under the module's name, and the types derived from them.
 */

export type { FilterCondition } from './domain/filters/index.js';
export type { Role } from './domain/roles.js';
export { ROLES } from './domain/roles.js';
export type { SsoFailure } from './domain/sso.js';
export type { Branch, StepConfig, StepType } from './domain/workflows/step-types.js';
export { BRANCHES, STEP_TYPES } from './domain/workflows/step-types.js';
export type {
  InstanceSettings,
  Me,
  Permissions,
  Project,
  ProjectCreation,
  User,
  UserSession,
} from './modules/accounts/schemas.js';
export * as accounts from './modules/accounts/schemas.js';
export type { ActivityItem, ActivityStats, ActivityType, Timeseries } from './modules/activity/schemas.js';
export * as activity from './modules/activity/schemas.js';
export type { ApiKey } from './modules/api-keys/schemas.js';
export * as apiKeys from './modules/api-keys/schemas.js';
export type { AuditEntry, AuditPage } from './modules/audit/schemas.js';
export * as audit from './modules/audit/schemas.js';
export type {
  AudienceType,
  Campaign,
  CampaignAbTestReport,
  CampaignEngagement,
  CampaignLink,
  CampaignProgress,
  CampaignRecipient,
  CampaignSendTimes,
  CampaignSettings,
  CampaignStats,
  CampaignStatus,
  RecipientOutcome,
  RecipientReason,
} from './modules/campaigns/schemas.js';
export * as campaigns from './modules/campaigns/schemas.js';
export type { ConsentPage } from './modules/consent/schemas.js';
export type { Contact, ContactJob, UpsertedContact } from './modules/contacts/schemas.js';
export * as contacts from './modules/contacts/schemas.js';
export type { DomainHealth, RuleItem } from './modules/deliverability/schemas.js';
export * as deliverability from './modules/deliverability/schemas.js';
export type { DmarcSource, DmarcSummary } from './modules/dmarc/schemas.js';
export * as dmarc from './modules/dmarc/schemas.js';
export type { DnsRecord, Domain, RecordPurpose, RecordStatus } from './modules/domains/schemas.js';
export * as domains from './modules/domains/schemas.js';
export type { BounceType, EmailRecord, EmailStatus, EmailType } from './modules/emails/schemas.js';
export * as emails from './modules/emails/schemas.js';
export type { TrackedEvent } from './modules/events/schemas.js';
export * as events from './modules/events/schemas.js';
export type { Form, FormDetail, FormPreview, FormStats, PendingSignups } from './modules/forms/schemas.js';
export type { InboundEmail } from './modules/inbound/schemas.js';
export * as inbound from './modules/inbound/schemas.js';
/** What removing or re-roling a member answers: the member's pending invitations it withdrew. */
export type { CreatedInvite, Invite, InvitePreview, Member, WithdrawnInvites } from './modules/members/schemas.js';
export * as members from './modules/members/schemas.js';
export type { DeliverySettings } from './modules/pacing/schemas.js';
export * as pacing from './modules/pacing/schemas.js';
export type { EraseJob, PrivacySettings, PrivacySettingsPatch } from './modules/privacy/schemas.js';
export * as privacy from './modules/privacy/schemas.js';
export type { Segment, SegmentType } from './modules/segments/schemas.js';
export * as segments from './modules/segments/schemas.js';
export type { SpamCheck, SpamCheckStatus } from './modules/spam-check/schemas.js';
export * as spamCheck from './modules/spam-check/schemas.js';
export type { SignInMethods, SsoSettingsView } from './modules/sso/schemas.js';
export type { Suppression, SuppressionReason } from './modules/suppressions/schemas.js';
export * as suppressions from './modules/suppressions/schemas.js';
export type { EmailContent, Template, Version, VersionSummary } from './modules/templates/schemas.js';
export * as templates from './modules/templates/schemas.js';
export type { ContactTopics, Topic } from './modules/topics/schemas.js';
export type { TrackingSettings, TrackingSettingsPatch } from './modules/tracking-settings/schemas.js';
export * as trackingSettings from './modules/tracking-settings/schemas.js';
export type { Enrolment, RecoveryCodes, TwoFactorStatus } from './modules/two-factor/schemas.js';
export * as verify from './modules/verify/schemas.js';
export type { Webhook, WebhookDelivery, WebhookDeliveryStatus } from './modules/webhooks/schemas.js';
export * as webhooks from './modules/webhooks/schemas.js';
export type {
  Execution,
  ExecutionDetail,
  ExecutionStatus,
  HistoryEntry,
  StepStats,
  TriggerType,
  Workflow,
  WorkflowDetail,
  WorkflowFields,
  WorkflowListItem,
  WorkflowStep,
  WorkflowTransition,
} from './modules/workflows/schemas.js';
export * as workflows from './modules/workflows/schemas.js';
