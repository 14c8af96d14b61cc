-- Every saved state of a template: its whole content, who saved it, when, and which fields changed.
-- `templates.version` is the number of its latest version; bumping it in the template's UPDATE
-- numbers versions without a separate lock (the row lock orders concurrent saves).
ALTER TABLE "templates" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
CREATE TABLE "template_versions" (
	"template_id" uuid NOT NULL,
	"n" integer NOT NULL,
	"project_id" uuid NOT NULL,
	"event" text NOT NULL,
	"restored_from" integer,
	"changed" text[] DEFAULT '{}' NOT NULL,
	"author_kind" text,
	"author_user_id" uuid,
	"author_email" text,
	"name" text NOT NULL,
	"description" text,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"body_source" jsonb,
	"from_email" text NOT NULL,
	"from_name" text,
	"reply_to" text,
	"type" text NOT NULL,
	"track_opens" boolean,
	"track_clicks" boolean,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "template_versions_pkey" PRIMARY KEY ("template_id", "n")
);
--> statement-breakpoint
ALTER TABLE "template_versions" ADD CONSTRAINT "template_versions_template_id_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."templates"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "template_versions" ADD CONSTRAINT "template_versions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "template_versions" ADD CONSTRAINT "template_versions_author_user_id_users_id_fk" FOREIGN KEY ("author_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
-- Templates saved before history began start it with their content as it stands, dated their last
-- save, author unknown.
INSERT INTO "template_versions" ("template_id", "n", "project_id", "event", "name", "description", "subject", "body",
	"body_source", "from_email", "from_name", "reply_to", "type", "track_opens", "track_clicks", "created_at")
SELECT "id", 1, "project_id", 'created', "name", "description", "subject", "body", "body_source", "from_email",
	"from_name", "reply_to", "type", "track_opens", "track_clicks", "updated_at" FROM "templates";
