-- When a campaign's emails go: at a time of day in each recipient's zone (`local_time`:
-- { time, whenPassed }) or spread over a window from the send moment (`spread_hours`).
ALTER TABLE "campaigns" ADD COLUMN "local_time" jsonb;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "spread_hours" integer;
--> statement-breakpoint
-- A recipient's place in the frozen audience (0-based, contact id order): where it falls in a spread.
ALTER TABLE "campaign_recipients" ADD COLUMN "position" integer;
--> statement-breakpoint
-- The earliest an email may go; a paused campaign's emails resumed are due at it, not before.
ALTER TABLE "emails" ADD COLUMN "not_before" timestamp (3) with time zone;
