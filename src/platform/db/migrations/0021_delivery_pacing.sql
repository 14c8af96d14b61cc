-- Pacing (docs/decisions.md, "Pacing"): a project's limits per recipient domain and warm-up
-- schedules per sender domain, the next free slot of each limited recipient domain, and how much
-- each warming sender domain has sent per day.
CREATE TABLE "delivery_settings" (
	"project_id" uuid PRIMARY KEY NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"default_concurrency" integer,
	"recipient_domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"warmups" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "pacing_cursors" (
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"domain" text NOT NULL,
	"next_slot_at" timestamp (3) with time zone NOT NULL,
	PRIMARY KEY ("project_id", "domain")
);--> statement-breakpoint
CREATE TABLE "warmup_volumes" (
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"domain" text NOT NULL,
	"day" date NOT NULL,
	"sent" integer NOT NULL,
	PRIMARY KEY ("project_id", "domain", "day")
);--> statement-breakpoint
-- The slot a paced email waits for: it holds it while it is queued with its next attempt at that
-- slot (a retry, a pause or a resume moves the attempt and so lets the slot go).
ALTER TABLE "emails" ADD COLUMN "paced_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "emails_held_slots" ON "emails" USING btree ("project_id", lower(substring("to_email" from '[^@]*$')), "paced_at") WHERE status = 'queued' and paced_at = next_attempt_at;
