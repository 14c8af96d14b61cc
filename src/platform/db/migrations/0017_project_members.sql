CREATE TABLE "project_members" (
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"role" text NOT NULL CHECK ("role" IN ('owner', 'admin', 'member')),
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	PRIMARY KEY ("project_id", "user_id")
);
--> statement-breakpoint
CREATE INDEX "project_members_user" ON "project_members" USING btree ("user_id");
--> statement-breakpoint
-- Every project's owner so far becomes its first member, as an owner.
INSERT INTO "project_members" ("project_id", "user_id", "role", "created_at")
SELECT "id", "owner_id", 'owner', "created_at" FROM "projects" WHERE "owner_id" IS NOT NULL;
--> statement-breakpoint
CREATE TABLE "project_invites" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL REFERENCES "projects"("id") ON DELETE cascade,
	"email" text NOT NULL,
	"role" text NOT NULL CHECK ("role" IN ('owner', 'admin', 'member')),
	"token_hash" text NOT NULL UNIQUE,
	"invited_by" uuid REFERENCES "users"("id") ON DELETE set null,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"accepted_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "project_invites_project" ON "project_invites" USING btree ("project_id", "created_at");
