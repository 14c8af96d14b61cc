-- Campaign guardrails and reconciliation (docs/decisions.md, "Guardrails" and "Recipient outcomes").
-- A paused campaign says why and since when; the counters the guardrails judge (relay refusals, hard
-- bounces reported later) are kept apart, with the figures at the last resume or resend as the base.
ALTER TABLE "campaigns" ADD COLUMN "paused_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "paused_reason" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "rejected_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "hard_bounced_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "guard_baseline" jsonb;--> statement-breakpoint
-- Each recipient's outcome, changed in the statement that changes its email, so the list can be
-- filtered through an index instead of joining every recipient's email.
ALTER TABLE "campaign_recipients" ADD COLUMN "outcome" text DEFAULT 'queued' NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_recipients" ADD COLUMN "reason" text;--> statement-breakpoint
UPDATE "campaign_recipients" r SET
  "outcome" = CASE e.status
    WHEN 'sent' THEN CASE WHEN e.complained_at IS NULL THEN 'delivered' ELSE 'complained' END
    WHEN 'bounced' THEN 'bounced'
    WHEN 'failed' THEN 'failed'
    WHEN 'skipped' THEN 'skipped'
    ELSE 'queued' END,
  "reason" = CASE e.status
    WHEN 'bounced' THEN e.bounce_type
    WHEN 'failed' THEN CASE WHEN e.last_error LIKE '%(gave up after %' OR e.last_error LIKE 'Not sent:%'
      THEN 'undeliverable' ELSE 'rejected' END
    WHEN 'skipped' THEN CASE e.last_error
      WHEN 'Not sent: the address is on the suppression list' THEN 'suppressed'
      WHEN 'Not sent: marketing email to an unsubscribed contact' THEN 'unsubscribed'
      WHEN 'Not sent: the campaign was cancelled' THEN 'cancelled'
      ELSE 'unrenderable' END
    END
FROM "emails" e WHERE e.id = r.email_id;--> statement-breakpoint
CREATE INDEX "campaign_recipients_outcome" ON "campaign_recipients" USING btree ("campaign_id","outcome","contact_id");--> statement-breakpoint
CREATE INDEX "campaign_recipients_email" ON "campaign_recipients" USING btree ("email_id") WHERE email_id is not null;--> statement-breakpoint
-- A project's own guardrail thresholds (null: the instance's default) and its marketing cap (off when null).
CREATE TABLE "campaign_settings" (
	"project_id" uuid PRIMARY KEY NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"max_complaint_rate" double precision,
	"max_bounce_rate" double precision,
	"min_sample" integer,
	"marketing_cap_count" integer,
	"marketing_cap_days" integer,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
