-- The zone a workflow's DELAY until a time of day falls back on for contacts whose data names none.
ALTER TABLE "projects" ADD COLUMN "timezone" text NOT NULL DEFAULT 'UTC';
