-- Instance admins: the first user (who set the instance up) and whom an instance admin names.
ALTER TABLE "users" ADD COLUMN "instance_admin" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE "users" SET "instance_admin" = true
WHERE "id" = (SELECT "id" FROM "users" ORDER BY "created_at", "id" LIMIT 1);
--> statement-breakpoint
-- Settings of the whole instance, one row once any is set. `project_creation` null is the default:
-- instance admins only, once the instance has more than one user.
CREATE TABLE "instance_settings" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL CHECK ("id"),
	"project_creation" text CHECK ("project_creation" IN ('everyone', 'admins')),
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- Pending invitations whose inviter may no longer grant their role (removed or demoted before
-- invitations were withdrawn with them) are withdrawn now.
DELETE FROM "project_invites" i
WHERE i."accepted_at" IS NULL AND NOT EXISTS (
	SELECT 1 FROM "project_members" m
	WHERE m."project_id" = i."project_id" AND m."user_id" = i."invited_by"
		AND (m."role" = 'owner' OR (m."role" = 'admin' AND i."role" <> 'owner'))
);
