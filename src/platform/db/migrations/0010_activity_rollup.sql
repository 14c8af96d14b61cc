CREATE TABLE "event_daily_counts" (
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"day" date NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "event_daily_counts_project_id_name_day_pk" PRIMARY KEY("project_id","name","day")
);
--> statement-breakpoint
ALTER TABLE "event_daily_counts" ADD CONSTRAINT "event_daily_counts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_daily_counts_project_day" ON "event_daily_counts" USING btree ("project_id","day");--> statement-breakpoint
INSERT INTO "event_daily_counts" ("project_id", "name", "day", "count")
SELECT "project_id", "name", ("created_at" AT TIME ZONE 'UTC')::date, count(*)::int FROM "events" e
WHERE NOT EXISTS (SELECT 1 FROM "event_outbox" o WHERE o."event_id" = e."id")
GROUP BY 1, 2, 3;
