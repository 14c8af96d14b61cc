-- An A/B test of a campaign (`ab_test`: { variants, testPercent, metric, waitHours }) and the
-- variant that won it (`ab_winner`: { variant, chosenBy, decidedAt, reason }).
ALTER TABLE "campaigns" ADD COLUMN "ab_test" jsonb;
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "ab_winner" jsonb;
--> statement-breakpoint
-- The variant a recipient of the test phase gets (0-based); null until the winner goes to the rest.
ALTER TABLE "campaign_recipients" ADD COLUMN "variant" smallint;
--> statement-breakpoint
-- The first open came from a mail provider's image proxy moments after sending: a prefetch, not a reader.
ALTER TABLE "emails" ADD COLUMN "machine_open" boolean;
--> statement-breakpoint
-- When every recipient of the test phase had an email: from then the fan-out waits for the winner.
ALTER TABLE "campaigns" ADD COLUMN "ab_tested_at" timestamp (3) with time zone;
