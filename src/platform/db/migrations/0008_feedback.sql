CREATE TABLE "suppressions" (
	"project_id" uuid NOT NULL,
	"email" text NOT NULL,
	"reason" text NOT NULL,
	"email_id" uuid,
	"detail" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppressions_project_id_email_pk" PRIMARY KEY("project_id","email")
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "complained_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "bounced_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "bounce_type" text;--> statement-breakpoint
ALTER TABLE "emails" ADD COLUMN "complained_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "suppressions_project_created" ON "suppressions" USING btree ("project_id","created_at","email");