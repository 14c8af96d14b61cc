-- Topics: what a project's marketing mail is about, for contacts to choose (docs/decisions.md, "Topics").
CREATE TABLE "topics" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"public" boolean DEFAULT true NOT NULL,
	"default_on" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "topics" ADD CONSTRAINT "topics_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "topics_project_name" ON "topics" USING btree ("project_id", lower("name"));
--> statement-breakpoint
CREATE INDEX "topics_project_time" ON "topics" USING btree ("project_id", "created_at" DESC, "id" DESC);
--> statement-breakpoint
-- Only the choices contacts made: a contact without a row for a topic has the topic's default.
-- Creating contacts (track, imports) writes nothing here.
CREATE TABLE "contact_topics" (
	"topic_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"subscribed" boolean NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "contact_topics_pk" PRIMARY KEY ("topic_id", "contact_id")
);
--> statement-breakpoint
ALTER TABLE "contact_topics" ADD CONSTRAINT "contact_topics_topic_id_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."topics"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "contact_topics" ADD CONSTRAINT "contact_topics_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "contact_topics_contact" ON "contact_topics" USING btree ("contact_id");
--> statement-breakpoint
-- A marketing send about one topic: only its members receive it, and its unsubscribe link leaves only it.
ALTER TABLE "campaigns" ADD COLUMN "topic_id" uuid;
--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "topic_id" uuid;
--> statement-breakpoint
-- The topics a visitor chose on a form with double opt-in: applied with the rest when the link is used.
ALTER TABLE "form_signups" ADD COLUMN "topics" jsonb DEFAULT '{}'::jsonb NOT NULL;
