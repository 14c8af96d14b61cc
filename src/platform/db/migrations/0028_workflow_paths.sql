-- The path executions took through a workflow is its steps' history; the canvas reads it per step
-- (what a SEND_EMAIL step sent over a range) as well as per execution.
CREATE INDEX "workflow_execution_steps_step" ON "workflow_execution_steps" USING btree ("step_id","finished_at");
