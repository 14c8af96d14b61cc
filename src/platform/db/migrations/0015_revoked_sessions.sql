CREATE TABLE "revoked_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "revoked_sessions_expires" ON "revoked_sessions" USING btree ("expires_at");