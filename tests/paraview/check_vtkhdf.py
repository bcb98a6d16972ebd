"""paraview.vtkhdf: ParaView (pvpython, offscreen) opens dgrun's VTKHDF output.

Usage: pvpython check_vtkhdf.py ORDER_FILE OUT2D OUT3D [PNG]
  ORDER_FILE  the output of test_problems_vtk_lagrange --print: dgrun's VTK point
              order per (dim, N), compared here with VTK's own
              (vtkLagrange{Curve,Triangle,Tetra}.GetParametricCoords)
  OUT2D       output folder of a Maxwell TM run (N = 3, 4 x 4 cells, a t = 0 snapshot)
  OUT3D       output folder of a Maxwell 3D run (N = 2, 2 x 2 x 2 boxes)
  PNG         given: only render the 2D snapshot there (needs an X display)
Checked: the series opens as one time series with the run's times; point and cell
counts (K*Np, K), the cell type (69, 71); element_id is 0..K-1 and rank 0; at t = 0
the fields equal the exact solution at VTK's points to interpolation accuracy
(N = 3 on h = 1/4: the nodal interpolant's error is below 1e-2 for these modes,
bounded by C h^(N+1) |u|_(N+1) with |u|_(N+1) ~ (pi sqrt 2)^4), and the written
error_ fields equal the field minus that exact solution (to 1e-12)."""
import math
import os
import sys

from paraview.simple import (GetActiveViewOrCreate, OpenDataFile, Render, SaveScreenshot,
                             Show, ColorBy, servermanager)

failures = []


def expect(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def vtk_order(dim, n):
    import vtk
    cls = {1: vtk.vtkLagrangeCurve, 2: vtk.vtkLagrangeTriangle, 3: vtk.vtkLagrangeTetra}[dim]
    npts = [0, n + 1, (n + 1) * (n + 2) // 2, (n + 1) * (n + 2) * (n + 3) // 6][dim]
    c = cls()
    c.GetPointIds().SetNumberOfIds(npts)
    c.GetPoints().SetNumberOfPoints(npts)
    for i in range(npts):
        c.GetPointIds().SetId(i, i)
    c.Initialize()
    pc = c.GetParametricCoords()
    return [int(round(pc[i] * n)) for i in range(3 * npts)]


def check_order(path):
    count = 0
    for line in open(path):
        v = [int(t) for t in line.split()]
        dim, n, ours = v[0], v[1], v[2:]
        expect(ours == vtk_order(dim, n), "dim %d N %d: point order differs from VTK's" % (dim, n))
        count += 1
    expect(count == 18, "order file has %d cells, not 18" % count)


def array(data, kind, name):
    a = (data.GetPointData() if kind == "point" else data.GetCellData()).GetArray(name)
    expect(a is not None, "no %s array %s" % (kind, name))
    return a


def check_run(folder, name, dim, order, K, times, exact):
    reader = OpenDataFile("%s/%s.hdf.series" % (folder, name))
    tv = list(reader.TimestepValues)
    expect(len(tv) == len(times) and all(abs(a - b) < 1e-12 for a, b in zip(tv, times)),
           "%s: times %s, not %s" % (name, tv, times))
    reader.UpdatePipeline(0.0)
    d = servermanager.Fetch(reader)
    np_ = [0, order + 1, (order + 1) * (order + 2) // 2,
           (order + 1) * (order + 2) * (order + 3) // 6][dim]
    expect(d.GetNumberOfCells() == K, "%s: %d cells, not %d" % (name, d.GetNumberOfCells(), K))
    expect(d.GetNumberOfPoints() == K * np_, "%s: %d points" % (name, d.GetNumberOfPoints()))
    ctype = {2: 69, 3: 71}[dim]
    expect(all(d.GetCellType(k) == ctype for k in range(K)), "%s: cell type not %d" % (name, ctype))
    ids = array(d, "cell", "element_id")
    expect(sorted(int(ids.GetValue(k)) for k in range(K)) == list(range(K)), "%s: element ids" % name)
    expect(array(d, "cell", "rank").GetRange() == (0.0, 0.0), "%s: rank" % name)
    worst, worst_e = 0.0, 0.0
    for field, f in exact.items():
        a, e = array(d, "point", field), array(d, "point", "error_" + field)
        for p in range(d.GetNumberOfPoints()):
            x = d.GetPoint(p)
            want = f(x)
            for c in range(a.GetNumberOfComponents()):
                v = a.GetComponent(p, c)
                worst = max(worst, abs(v - want[c]))
                worst_e = max(worst_e, abs(e.GetComponent(p, c) - (v - want[c])))
    print("%s: max |u - exact| at the points %.3e, error field mismatch %.3e" % (name, worst, worst_e))
    expect(worst < 1e-2, "%s: fields differ from the exact solution by %.3e" % (name, worst))
    expect(worst_e < 1e-12, "%s: error field off by %.3e" % (name, worst_e))
    return reader


def main():
    if len(sys.argv) > 4:  # render only (the checks ran offscreen before)
        r2 = OpenDataFile("%s/maxwell2d_tm.hdf.series" % sys.argv[2])
        r2.UpdatePipeline(0.0)
        view = GetActiveViewOrCreate("RenderView")
        view.ViewSize = [800, 600]
        disp = Show(r2, view)
        ColorBy(disp, ("POINTS", "Ez"))
        disp.SetRepresentationType("Surface With Edges")
        view.ResetCamera()
        Render(view)
        SaveScreenshot(sys.argv[4], view, ImageResolution=[800, 600])
    else:
        check_order(sys.argv[1])
        pi = math.pi
        ez = lambda x: [math.sin(pi * x[0]) * math.sin(pi * x[1])]
        check_run(sys.argv[2], "maxwell2d_tm", 2, 3, 32, [0.0, 0.05],
                  {"Ez": ez, "H": lambda x: [0.0, 0.0, 0.0]})
        check_run(sys.argv[3], "maxwell3d", 3, 2, 48, [0.0, 0.02],
                  {"E": lambda x: [0.0, 0.0, ez(x)[0]], "H": lambda x: [0.0, 0.0, 0.0]})
    print("ok" if not failures else "%d check(s) failed" % len(failures))
    sys.stdout.flush()
    # (os._exit: under Xvfb, 5.11's teardown of the render window fails with
    # GLXBadContext after the picture is saved)
    os._exit(1 if failures else 0)


main()
