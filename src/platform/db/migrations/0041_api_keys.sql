-- Named API keys besides the project's pair, each bound to scopes. A rotation keeps the replaced
-- secret's hash working until `previous_valid_until`; revoked keys stay listed, refused.
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE CASCADE,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"key_hash" text NOT NULL UNIQUE,
	"key_hint" text NOT NULL,
	"previous_key_hash" text UNIQUE,
	"previous_valid_until" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone,
	"created_by" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"rotated_at" timestamp (3) with time zone,
	"last_used_at" timestamp (3) with time zone,
	"last_used_ip" text,
	"revoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "api_keys_project" ON "api_keys" USING btree ("project_id", "created_at");
