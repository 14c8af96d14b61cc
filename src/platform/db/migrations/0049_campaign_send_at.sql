-- When a recipient's email is due, for a campaign at a local time or spread over a window (null
-- otherwise): reckoned for the whole audience in the statement that freezes it. It replaces the
-- recipient's place in the audience, from which the fan-out reckoned a spread's times one by one.
ALTER TABLE "campaign_recipients" ADD COLUMN "send_at" timestamp (3) with time zone;
--> statement-breakpoint
ALTER TABLE "campaign_recipients" DROP COLUMN "position";
--> statement-breakpoint
-- The fan-out of a timed campaign walks its recipients in the order they are due, a window ahead.
CREATE INDEX "campaign_recipients_due" ON "campaign_recipients" USING btree ("campaign_id","send_at","contact_id") WHERE email_id is null and send_at is not null;
