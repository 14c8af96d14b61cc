-- The audit log: one row per change made through the dashboard or the API (and by jobs and
-- guardrails, as "system"), written in the transaction of the change. No foreign keys: an entry
-- outlives its project's users, keys and targets, and names its actor as it was (`actor_name`).
-- `project_id` is null for what belongs to no project (signing in, a user's own security).
CREATE TABLE "audit_log" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid,
	"created_at" timestamp (3) with time zone NOT NULL,
	"actor" text NOT NULL,
	"actor_name" text,
	"ip" text,
	"user_agent" text,
	"request_id" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text,
	"changes" jsonb
);
--> statement-breakpoint
-- One index per filter of GET /audit-log, each ending in the list's order, so every page of every
-- filter is a short index range scan however long the log is.
CREATE INDEX "audit_log_project_time" ON "audit_log" USING btree ("project_id", "created_at" DESC, "id" DESC);
--> statement-breakpoint
CREATE INDEX "audit_log_project_actor" ON "audit_log" USING btree ("project_id", "actor", "created_at" DESC, "id" DESC);
--> statement-breakpoint
CREATE INDEX "audit_log_project_action" ON "audit_log" USING btree ("project_id", "action", "created_at" DESC, "id" DESC);
--> statement-breakpoint
CREATE INDEX "audit_log_project_target" ON "audit_log" USING btree ("project_id", "target_type", "target_id", "created_at" DESC, "id" DESC);
--> statement-breakpoint
-- The retention's batches take the oldest rows of every project from here.
CREATE INDEX "audit_log_time" ON "audit_log" USING btree ("created_at");
--> statement-breakpoint
-- Entries are never changed, and only the retention removes them: it says so with
-- `set_config('postbox.audit_purge', 'on', true)` in its own transaction.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' AND current_setting('postbox.audit_purge', true) = 'on' THEN
		RETURN NULL;
	END IF;
	RAISE EXCEPTION 'audit_log is append-only (%)', TG_OP USING ERRCODE = '42501';
END
$$;
--> statement-breakpoint
CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE OR TRUNCATE ON "audit_log"
	FOR EACH STATEMENT EXECUTE FUNCTION "audit_log_append_only"();
