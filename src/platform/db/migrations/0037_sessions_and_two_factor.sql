-- Dashboard sessions become records: a user lists and ends them; a token whose record is gone is
-- refused. They replace the list of signed-out tokens (a session that exists is now the proof).
CREATE TABLE "user_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"ip" text NOT NULL,
	"user_agent" text NOT NULL,
	"second_factor" boolean NOT NULL
);
--> statement-breakpoint
CREATE INDEX "user_sessions_user" ON "user_sessions" USING btree ("user_id");
--> statement-breakpoint
CREATE INDEX "user_sessions_expires" ON "user_sessions" USING btree ("expires_at");
--> statement-breakpoint
DROP TABLE "revoked_sessions";
--> statement-breakpoint
-- A TOTP secret; enabled once a first code confirmed it. `last_used_step` refuses a code used before.
CREATE TABLE "user_two_factor" (
	"user_id" uuid PRIMARY KEY NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"secret" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"enabled_at" timestamp (3) with time zone,
	"last_used_step" bigint
);
--> statement-breakpoint
CREATE TABLE "user_recovery_codes" (
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"code_hash" text NOT NULL,
	"used_at" timestamp (3) with time zone,
	PRIMARY KEY ("user_id", "code_hash")
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "require_two_factor" boolean DEFAULT false NOT NULL;
