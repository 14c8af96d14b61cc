-- Per form and per day (UTC): how often it was shown (a challenge issued by the form's script, on
-- the hosted page or a site that embeds it), submitted (accepted) and confirmed. One row per form
-- per day, added to by each process's counters every few seconds, never a row per view.
CREATE TABLE "form_daily_stats" (
	"form_id" uuid NOT NULL,
	"day" date NOT NULL,
	"views" bigint DEFAULT 0 NOT NULL,
	"submissions" bigint DEFAULT 0 NOT NULL,
	"confirmations" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "form_daily_stats_pkey" PRIMARY KEY ("form_id", "day")
);
--> statement-breakpoint
-- A form may name a template of the project for its confirmation email (the built-in one otherwise).
ALTER TABLE "forms" ADD COLUMN "confirmation_template_id" uuid;
