-- The block editor's document of a template, kept beside the HTML body it produced; the server
-- stores it as given and never renders from it.
ALTER TABLE "templates" ADD COLUMN "body_source" jsonb;
