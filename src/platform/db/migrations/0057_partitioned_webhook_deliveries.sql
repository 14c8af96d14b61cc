-- `webhook_deliveries` becomes a table partitioned by month of `created_at`, as `events` did in
-- 0030 and in the same way: an existing table with rows is attached, as it is, as the default
-- partition (a moment's lock at any size), and the worker seals it and makes monthly partitions
-- ahead (platform/db/partitions.ts). Old months are dropped whole past
-- WEBHOOK_DELIVERY_RETENTION_DAYS (docs/operations.md, "Webhook deliveries and their retention").
ALTER TABLE "webhook_deliveries" RENAME TO "webhook_deliveries_unpartitioned";
--> statement-breakpoint
ALTER INDEX "webhook_deliveries_pkey" RENAME TO "webhook_deliveries_unpartitioned_pkey";
--> statement-breakpoint
ALTER INDEX "webhook_deliveries_webhook_created" RENAME TO "webhook_deliveries_unpartitioned_webhook_created";
--> statement-breakpoint
ALTER INDEX "webhook_deliveries_event" RENAME TO "webhook_deliveries_unpartitioned_event";
--> statement-breakpoint
ALTER INDEX "webhook_deliveries_received_from" RENAME TO "webhook_deliveries_unpartitioned_received_from";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries_unpartitioned" RENAME CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" TO "webhook_deliveries_unpartitioned_webhook_id_fk";
--> statement-breakpoint
-- No primary key on the parent, as for events: each partition has a unique index on `id` of its own.
CREATE TABLE "webhook_deliveries" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"webhook_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"event_name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"response_status" integer,
	"last_error" text,
	"delivered_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- The same definitions as the existing table's indexes, so that attaching it adopts them.
CREATE INDEX "webhook_deliveries_webhook_created" ON "webhook_deliveries" USING btree ("webhook_id","created_at","id");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_event" ON "webhook_deliveries" USING btree ("event_id");
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_received_from" ON "webhook_deliveries" USING btree (lower("payload" #>> '{data,from}'))
	WHERE "event_name" = 'email.received';
--> statement-breakpoint
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM "webhook_deliveries_unpartitioned") THEN
		ALTER TABLE "webhook_deliveries" ATTACH PARTITION "webhook_deliveries_unpartitioned" DEFAULT;
	ELSE
		DROP TABLE "webhook_deliveries_unpartitioned";
		CREATE TABLE "webhook_deliveries_default" PARTITION OF "webhook_deliveries" DEFAULT;
		CREATE UNIQUE INDEX "webhook_deliveries_default_id" ON "webhook_deliveries_default" ("id");
	END IF;
END $$;
