DROP INDEX IF EXISTS "events_project_name_created";--> statement-breakpoint
CREATE INDEX "events_project_name_created" ON "events" USING btree ("project_id","name","created_at") INCLUDE ("contact_id");
