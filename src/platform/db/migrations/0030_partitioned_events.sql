-- `events` becomes a table partitioned by month of `created_at` (docs/decisions.md, "Events
-- partitioned by month"). An existing table with rows is attached, as it is, as the default
-- partition: no row is copied and no index is built, so the conversion holds its lock for a moment
-- at any size. The worker then seals it with a validated upper bound, turns it into the partition
-- of everything before that bound, and makes monthly partitions ahead (platform/db/partitions.ts,
-- docs/operations.md, "Partitioned events and their retention"). An empty table is simply replaced.
ALTER TABLE "events" RENAME TO "events_unpartitioned";
--> statement-breakpoint
ALTER INDEX "events_pkey" RENAME TO "events_unpartitioned_pkey";
--> statement-breakpoint
ALTER INDEX "events_contact_created" RENAME TO "events_unpartitioned_contact_created";
--> statement-breakpoint
ALTER INDEX "events_project_campaign_created" RENAME TO "events_unpartitioned_project_campaign_created";
--> statement-breakpoint
ALTER INDEX "events_project_created" RENAME TO "events_unpartitioned_project_created";
--> statement-breakpoint
ALTER INDEX "events_project_name_created" RENAME TO "events_unpartitioned_project_name_created";
--> statement-breakpoint
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_contact_id_contacts_id_fk" TO "events_unpartitioned_contact_id_fk";
--> statement-breakpoint
-- No primary key on the parent: it would have to include `created_at`, and the existing table's
-- key is on `id` alone. Each partition has a unique index on `id` of its own instead.
CREATE TABLE "events" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"name" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- The same definitions as the existing table's indexes, so that attaching it adopts them.
CREATE INDEX "events_contact_created" ON "events" USING btree ("contact_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "events_project_created" ON "events" USING btree ("project_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "events_project_name_created" ON "events" USING btree ("project_id","name","created_at") INCLUDE ("contact_id");
--> statement-breakpoint
CREATE INDEX "events_project_campaign_created" ON "events" USING btree ("project_id",("data"->>'campaignId'),"created_at","id") WHERE ("data"->>'campaignId') is not null;
--> statement-breakpoint
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM "events_unpartitioned") THEN
		ALTER TABLE "events" ATTACH PARTITION "events_unpartitioned" DEFAULT;
	ELSE
		DROP TABLE "events_unpartitioned";
		CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;
		CREATE UNIQUE INDEX "events_default_id" ON "events_default" ("id");
	END IF;
END $$;
--> statement-breakpoint
-- How long a project keeps its events, in days; null takes the instance's EVENT_RETENTION_DAYS
-- (unset: for ever).
ALTER TABLE "projects" ADD COLUMN "event_retention_days" integer CHECK ("event_retention_days" > 0);
