-- Campaign reporting (docs/decisions.md, "Campaign reporting"). The block editor's document kept
-- beside the HTML body; clicks per link and first opens and clicks per minute, counted in the
-- transaction that records each hit, so a report never recounts a campaign's emails or events; and
-- indexes that make the live rate (messages sent lately) and what pacing holds back cheap to read.
ALTER TABLE "campaigns" ADD COLUMN "body_source" jsonb;--> statement-breakpoint
-- Unsubscribes through a campaign's email, counted from now on (earlier ones did not record the email).
ALTER TABLE "campaigns" ADD COLUMN "unsubscribed_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE TABLE "campaign_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"campaign_id" uuid NOT NULL REFERENCES "campaigns"("id") ON DELETE cascade,
	"url" text NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"unique_clicks" integer DEFAULT 0 NOT NULL,
	"last_clicked_at" timestamp (3) with time zone NOT NULL
);--> statement-breakpoint
-- A URL may be longer than a btree entry can hold: its hash is the key.
CREATE UNIQUE INDEX "campaign_links_url" ON "campaign_links" USING btree ("campaign_id", md5("url"));--> statement-breakpoint
CREATE INDEX "campaign_links_clicks" ON "campaign_links" USING btree ("campaign_id", "clicks");--> statement-breakpoint
-- Who clicked each link at least once: a second click of the same email is not a new clicker.
CREATE TABLE "campaign_link_clickers" (
	"link_id" uuid NOT NULL REFERENCES "campaign_links"("id") ON DELETE cascade,
	"email_id" uuid NOT NULL,
	PRIMARY KEY ("link_id", "email_id")
);--> statement-breakpoint
CREATE TABLE "campaign_engagement" (
	"campaign_id" uuid NOT NULL REFERENCES "campaigns"("id") ON DELETE cascade,
	"minute" timestamp (3) with time zone NOT NULL,
	"opens" integer DEFAULT 0 NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	PRIMARY KEY ("campaign_id", "minute")
);--> statement-breakpoint
CREATE INDEX "emails_campaign_sent" ON "emails" USING btree ("campaign_id", "sent_at") WHERE campaign_id is not null and sent_at is not null;--> statement-breakpoint
CREATE INDEX "emails_campaign_paced" ON "emails" USING btree ("campaign_id", "next_attempt_at") WHERE status = 'queued' and campaign_id is not null and paced_at = next_attempt_at;--> statement-breakpoint
-- What was tracked before: first opens and clicks from the emails, links from the click events.
INSERT INTO "campaign_engagement" ("campaign_id", "minute", "opens", "clicks")
SELECT campaign_id, minute, sum(opens)::int, sum(clicks)::int FROM (
	SELECT campaign_id, date_trunc('minute', opened_at) AS minute, 1 AS opens, 0 AS clicks
	FROM "emails" WHERE campaign_id IS NOT NULL AND opened_at IS NOT NULL
	UNION ALL
	SELECT campaign_id, date_trunc('minute', clicked_at), 0, 1
	FROM "emails" WHERE campaign_id IS NOT NULL AND clicked_at IS NOT NULL
) hits WHERE EXISTS (SELECT 1 FROM "campaigns" c WHERE c.id = hits.campaign_id)
GROUP BY campaign_id, minute;--> statement-breakpoint
INSERT INTO "campaign_links" ("campaign_id", "url", "clicks", "unique_clicks", "last_clicked_at")
SELECT c.id, ev.data->>'url', count(*)::int, count(DISTINCT ev.data->>'emailId')::int, max(ev.created_at)
FROM "events" ev JOIN "campaigns" c ON c.id::text = ev.data->>'campaignId'
WHERE ev.name = 'email.clicked' AND ev.data->>'url' IS NOT NULL
GROUP BY c.id, ev.data->>'url';--> statement-breakpoint
INSERT INTO "campaign_link_clickers" ("link_id", "email_id")
SELECT DISTINCT l.id, (ev.data->>'emailId')::uuid
FROM "events" ev JOIN "campaign_links" l ON l.campaign_id::text = ev.data->>'campaignId' AND l.url = ev.data->>'url'
WHERE ev.name = 'email.clicked' AND ev.data->>'emailId' ~ '^[0-9a-fA-F-]{36}$';
