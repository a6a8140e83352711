"""Tests of gitm's Python hook in real PyTorch programs (jobs/), each run in a fresh interpreter the way gitm runs
it: the hook's folder first on PYTHONPATH, GITM_HOOK_DIR a fresh folder. The hook under test is GITM_TEST_HOOK
(what TorchHookPythonTest installs from gitm's jar), else the source folder."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HOOK = os.environ.get("GITM_TEST_HOOK") or os.path.join(
    HERE, "..", "..", "main", "resources", "io", "gitm", "job", "hook")
JOBS = os.path.join(HERE, "jobs")


def run(job, *args, levers=None, hook_dir=True, env=None, pythonpath_after=None):
    """Runs jobs/<job> under the hook; returns (completed process, hook folder, the job's last-line JSON)."""
    folder = tempfile.mkdtemp(prefix="gitm-hook-test-")
    e = {k: v for k, v in os.environ.items() if not k.startswith("GITM_")}
    e["PYTHONPATH"] = HOOK + (os.pathsep + pythonpath_after if pythonpath_after else "")
    if hook_dir:
        e["GITM_HOOK_DIR"] = folder
        e["GITM_HOOK_VERSION"] = "1"
    if levers is not None:
        e["GITM_TORCH_LEVERS"] = levers
    e.update(env or {})
    p = subprocess.run([sys.executable, os.path.join(JOBS, job)] + [str(a) for a in args], env=e,
                       capture_output=True, text=True, timeout=600)
    out = p.stdout.strip().splitlines()
    doc = json.loads(out[-1]) if out and out[-1].startswith("{") else None
    return p, folder, doc


def load(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return json.load(f)


class StepMetric(unittest.TestCase):
    def test_every_optimizer_step_is_counted_and_the_lr_schedule_still_sees_them(self):
        p, folder, doc = run("train_loop.py", 12)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = load(folder, "metric.json")
        self.assertEqual(m["source"], "optimizer")
        self.assertEqual(m["steps"], 12)
        self.assertEqual(m["warmupSteps"], 2)  # a fifth of 12, rounded down
        self.assertGreater(m["stepsPerSecond"], 0)
        self.assertEqual(m["samplesPerStep"], 8)
        # StepLR halves every 5 steps: 12 steps -> 0.1 * 0.5^2, and it saw optimizer.step before its own step
        self.assertAlmostEqual(doc["lr"], 0.025)
        self.assertNotIn("lr_scheduler.step()` before `optimizer.step()", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(folder, "hook-error.txt")))

    def test_the_step_rate_is_the_steps_after_the_warm_up_over_their_span(self):
        p, folder, _ = run("train_loop.py", 30)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = load(folder, "metric.json")
        self.assertEqual(m["steps"], 30)
        self.assertEqual(m["warmupSteps"], 6)
        med = m["stepSeconds"]["median"]
        # 23 steps over the span from the end of step 6 to the end of step 30: a rate near 1 / the median step
        self.assertGreater(m["stepsPerSecond"], 0.2 / med)
        self.assertLess(m["stepsPerSecond"], 5 / med)

    def test_a_job_without_an_optimizer_counts_the_forwards_of_its_top_module_only(self):
        p, folder, _ = run("inference.py", 10)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = load(folder, "metric.json")
        self.assertEqual(m["source"], "forward")
        self.assertEqual(m["steps"], 10)
        f = load(folder, "facts.json")
        self.assertEqual(f["topModules"][0]["type"], "Sequential")


class Facts(unittest.TestCase):
    def test_the_dataloader_the_flags_and_the_convolutions_are_described(self):
        p, folder, _ = run("train_loop.py", 6)
        self.assertEqual(p.returncode, 0, p.stderr)
        f = load(folder, "facts.json")
        self.assertEqual(f["hookVersion"], 1)
        self.assertEqual(len(f["dataloaders"]), 1)
        dl = f["dataloaders"][0]
        self.assertEqual((dl["datasetType"], dl["datasetKind"], dl["length"], dl["batchSize"], dl["numWorkers"],
                          dl["pinMemory"]), ("Squares", "map", 48, 8, 0, False))
        self.assertFalse(f["flags"]["allowTf32Cublas"])
        self.assertFalse(f["flags"]["cudnnBenchmark"])
        self.assertEqual(f["convolutions"]["modules"], 1)
        self.assertGreater(f["convolutions"]["contiguous"], 0)
        self.assertEqual(f["convolutions"]["channelsLast"], 0)
        self.assertEqual(f["levers"], {})
        self.assertEqual(f["used"]["compile"], 0)
        main = [n for n in os.listdir(folder) if n.startswith("main-")]
        self.assertEqual(main, ["main-single.json"])

    def test_workers_started_with_spawn_are_seen_but_not_steered(self):
        p, folder, doc = run("spawn_workers.py")
        self.assertEqual(p.returncode, 0, p.stderr)
        procs = [load(os.path.join(folder, "processes"), n) for n in os.listdir(os.path.join(folder, "processes"))]
        roles = sorted(x["role"] for x in procs)
        self.assertEqual(roles, ["main", "other", "other"])
        self.assertEqual(load(folder, "metric.json")["steps"], 4)


class Levers(unittest.TestCase):
    def test_tf32_and_cudnn_benchmark_are_set_for_the_job(self):
        p, folder, doc = run("train_loop.py", 4, levers="tf32,cudnn-benchmark")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(doc["allowTf32"])
        self.assertTrue(doc["cudnnBenchmark"])
        lv = load(folder, "facts.json")["levers"]
        self.assertTrue(lv["tf32"]["applied"])
        self.assertTrue(lv["cudnn-benchmark"]["applied"])

    def test_channels_last_converts_the_model_in_place_and_it_still_trains(self):
        p, folder, doc = run("train_loop.py", 12, levers="channels-last")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(doc["weightChannelsLast"])
        self.assertTrue(doc["sameParameter"])
        base, _, ref = run("train_loop.py", 12)
        self.assertAlmostEqual(doc["lastLoss"], ref["lastLoss"], places=4)
        f = load(folder, "facts.json")
        self.assertTrue(f["levers"]["channels-last"]["applied"])
        self.assertEqual(f["convolutions"]["contiguous"], 0)

    def test_the_dataloader_levers_change_what_the_job_left_at_its_defaults(self):
        p, folder, doc = run("train_loop.py", 6,
                             levers="dl-workers=2,dl-persistent-workers,dl-prefetch-factor=4,dl-pin-memory")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual((doc["numWorkers"], doc["persistentWorkers"], doc["prefetchFactor"]), (2, True, 4))
        lv = load(folder, "facts.json")["levers"]
        self.assertTrue(lv["dl-workers"]["applied"])
        self.assertIn("num_workers 0 -> 2", lv["dl-workers"]["detail"])
        self.assertTrue(lv["dl-persistent-workers"]["applied"])
        self.assertTrue(lv["dl-prefetch-factor"]["applied"])
        self.assertFalse(doc["pinMemory"])  # no CUDA here: pinning speeds up no copy
        self.assertFalse(lv["dl-pin-memory"]["applied"])
        self.assertIn("no CUDA", lv["dl-pin-memory"]["detail"])
        # the same data in the same order: the same training
        _, _, ref = run("train_loop.py", 6)
        self.assertAlmostEqual(doc["lastLoss"], ref["lastLoss"], places=5)

    def test_an_iterable_dataset_and_a_job_s_own_setting_are_left_alone(self):
        p, folder, doc = run("iterable.py", levers="dl-workers=2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(doc, {"streamBatches": 8, "streamWorkers": 0, "chosenWorkers": 1})
        lv = load(folder, "facts.json")["levers"]
        self.assertFalse(lv["dl-workers"]["applied"])
        self.assertIn("num_workers=1", lv["dl-workers"]["detail"])

    def test_a_lever_the_hook_does_not_know_is_reported_not_applied(self):
        p, folder, _ = run("train_loop.py", 4, levers="warp-drive")
        self.assertEqual(p.returncode, 0, p.stderr)
        lv = load(folder, "facts.json")["levers"]
        self.assertFalse(lv["warp-drive"]["applied"])
        self.assertIn("does not know", lv["warp-drive"]["detail"])


class NeverInTheWay(unittest.TestCase):
    def test_a_failure_inside_the_hook_turns_it_off_and_the_job_goes_on(self):
        p, folder, doc = run("odd_batches.py")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(doc, {"batches": 4})
        with open(os.path.join(folder, "hook-error.txt"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("turned itself off", text)
        self.assertIn("sealed batch", text)
        self.assertNotIn("sealed batch", p.stderr)

    def test_a_hook_folder_that_cannot_be_written_leaves_the_job_as_it_was(self):
        blocked = tempfile.mkdtemp(prefix="gitm-hook-blocked-")
        not_a_folder = os.path.join(blocked, "file")
        with open(not_a_folder, "w", encoding="utf-8") as f:
            f.write("not a folder")
        p, _, doc = run("train_loop.py", 6, levers="tf32", env={"GITM_HOOK_DIR": not_a_folder})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(doc["steps"], 6)
        self.assertEqual(p.stderr.strip(), "")
        _, _, ref = run("train_loop.py", 6, hook_dir=False)
        self.assertEqual(doc["lastLoss"], ref["lastLoss"])
        shutil.rmtree(blocked)

    def test_a_hook_of_another_protocol_refuses_to_act(self):
        p, folder, doc = run("train_loop.py", 4, levers="tf32", env={"GITM_HOOK_VERSION": "99"})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(doc["allowTf32"])
        with open(os.path.join(folder, "hook-error.txt"), encoding="utf-8") as f:
            self.assertIn("gitm expects hook protocol 99", f.read())
        self.assertFalse(os.path.exists(os.path.join(folder, "metric.json")))

    def test_without_gitm_the_hook_does_nothing(self):
        p, folder, doc = run("train_loop.py", 4, levers="tf32", hook_dir=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(doc["allowTf32"])
        self.assertEqual(os.listdir(folder), [])

    def test_a_program_that_never_imports_torch_is_left_alone(self):
        p, folder, doc = run("no_torch.py")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.listdir(folder), [])

    def test_the_job_s_own_sitecustomize_still_runs(self):
        user = tempfile.mkdtemp(prefix="gitm-user-site-")
        with open(os.path.join(user, "sitecustomize.py"), "w", encoding="utf-8") as f:
            f.write("import os\nos.environ['USER_SITECUSTOMIZE_RAN'] = 'yes'\n")
        p, folder, doc = run("no_torch.py", pythonpath_after=user)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(doc, {"marker": "yes"})
        p, folder, doc = run("train_loop.py", 4, pythonpath_after=user)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(load(folder, "metric.json")["steps"], 4)


if __name__ == "__main__":
    unittest.main()
