#map = affine_map<(d0) -> (d0 + 1)>
#map1 = affine_map<(d0) -> (d0 + 2)>
#map2 = affine_map<(d0) -> (d0 + 3)>
#map3 = affine_map<(d0) -> (d0 + 4)>
#map4 = affine_map<(d0) -> (d0 + 5)>
#map5 = affine_map<(d0) -> (d0 + 6)>
#map6 = affine_map<(d0) -> (d0 + 7)>
module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %cst = arith.constant dense<0.000000e+00> : vector<32xf32>
    %0 = ub.poison : f32
    %cst_0 = arith.constant dense<0.000000e+00> : vector<8x32xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    scf.for %arg4 = %c0 to %c256 step %c8 {
      scf.for %arg5 = %c0 to %c256 step %c32 {
        vector.transfer_write %cst, %alloc_1[%arg4, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %1 = affine.apply #map(%arg4)
        vector.transfer_write %cst, %alloc_1[%1, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %2 = affine.apply #map1(%arg4)
        vector.transfer_write %cst, %alloc_1[%2, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %3 = affine.apply #map2(%arg4)
        vector.transfer_write %cst, %alloc_1[%3, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %4 = affine.apply #map3(%arg4)
        vector.transfer_write %cst, %alloc_1[%4, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %5 = affine.apply #map4(%arg4)
        vector.transfer_write %cst, %alloc_1[%5, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %6 = affine.apply #map5(%arg4)
        vector.transfer_write %cst, %alloc_1[%6, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %7 = affine.apply #map6(%arg4)
        vector.transfer_write %cst, %alloc_1[%7, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c8 {
      scf.for %arg5 = %c0 to %c256 step %c32 {
        %1 = vector.transfer_read %alloc_1[%arg4, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %2 = affine.apply #map(%arg4)
        %3 = vector.transfer_read %alloc_1[%2, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %4 = affine.apply #map1(%arg4)
        %5 = vector.transfer_read %alloc_1[%4, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %6 = affine.apply #map2(%arg4)
        %7 = vector.transfer_read %alloc_1[%6, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %8 = affine.apply #map3(%arg4)
        %9 = vector.transfer_read %alloc_1[%8, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %10 = affine.apply #map4(%arg4)
        %11 = vector.transfer_read %alloc_1[%10, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %12 = affine.apply #map5(%arg4)
        %13 = vector.transfer_read %alloc_1[%12, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %14 = affine.apply #map6(%arg4)
        %15 = vector.transfer_read %alloc_1[%14, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %16:32 = vector.to_elements %1 : vector<32xf32>
        %17:32 = vector.to_elements %3 : vector<32xf32>
        %18:32 = vector.to_elements %5 : vector<32xf32>
        %19:32 = vector.to_elements %7 : vector<32xf32>
        %20:32 = vector.to_elements %9 : vector<32xf32>
        %21:32 = vector.to_elements %11 : vector<32xf32>
        %22:32 = vector.to_elements %13 : vector<32xf32>
        %23:32 = vector.to_elements %15 : vector<32xf32>
        %24 = vector.from_elements %16#0, %16#1, %16#2, %16#3, %16#4, %16#5, %16#6, %16#7, %16#8, %16#9, %16#10, %16#11, %16#12, %16#13, %16#14, %16#15, %16#16, %16#17, %16#18, %16#19, %16#20, %16#21, %16#22, %16#23, %16#24, %16#25, %16#26, %16#27, %16#28, %16#29, %16#30, %16#31, %17#0, %17#1, %17#2, %17#3, %17#4, %17#5, %17#6, %17#7, %17#8, %17#9, %17#10, %17#11, %17#12, %17#13, %17#14, %17#15, %17#16, %17#17, %17#18, %17#19, %17#20, %17#21, %17#22, %17#23, %17#24, %17#25, %17#26, %17#27, %17#28, %17#29, %17#30, %17#31, %18#0, %18#1, %18#2, %18#3, %18#4, %18#5, %18#6, %18#7, %18#8, %18#9, %18#10, %18#11, %18#12, %18#13, %18#14, %18#15, %18#16, %18#17, %18#18, %18#19, %18#20, %18#21, %18#22, %18#23, %18#24, %18#25, %18#26, %18#27, %18#28, %18#29, %18#30, %18#31, %19#0, %19#1, %19#2, %19#3, %19#4, %19#5, %19#6, %19#7, %19#8, %19#9, %19#10, %19#11, %19#12, %19#13, %19#14, %19#15, %19#16, %19#17, %19#18, %19#19, %19#20, %19#21, %19#22, %19#23, %19#24, %19#25, %19#26, %19#27, %19#28, %19#29, %19#30, %19#31, %20#0, %20#1, %20#2, %20#3, %20#4, %20#5, %20#6, %20#7, %20#8, %20#9, %20#10, %20#11, %20#12, %20#13, %20#14, %20#15, %20#16, %20#17, %20#18, %20#19, %20#20, %20#21, %20#22, %20#23, %20#24, %20#25, %20#26, %20#27, %20#28, %20#29, %20#30, %20#31, %21#0, %21#1, %21#2, %21#3, %21#4, %21#5, %21#6, %21#7, %21#8, %21#9, %21#10, %21#11, %21#12, %21#13, %21#14, %21#15, %21#16, %21#17, %21#18, %21#19, %21#20, %21#21, %21#22, %21#23, %21#24, %21#25, %21#26, %21#27, %21#28, %21#29, %21#30, %21#31, %22#0, %22#1, %22#2, %22#3, %22#4, %22#5, %22#6, %22#7, %22#8, %22#9, %22#10, %22#11, %22#12, %22#13, %22#14, %22#15, %22#16, %22#17, %22#18, %22#19, %22#20, %22#21, %22#22, %22#23, %22#24, %22#25, %22#26, %22#27, %22#28, %22#29, %22#30, %22#31, %23#0, %23#1, %23#2, %23#3, %23#4, %23#5, %23#6, %23#7, %23#8, %23#9, %23#10, %23#11, %23#12, %23#13, %23#14, %23#15, %23#16, %23#17, %23#18, %23#19, %23#20, %23#21, %23#22, %23#23, %23#24, %23#25, %23#26, %23#27, %23#28, %23#29, %23#30, %23#31 : vector<8x32xf32>
        %25 = scf.for %arg6 = %c0 to %c256 step %c1 iter_args(%arg7 = %24) -> (vector<8x32xf32>) {
          %34 = vector.transfer_read %arg0[%arg4, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %35 = vector.transfer_read %arg0[%2, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %36 = vector.transfer_read %arg0[%4, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %37 = vector.transfer_read %arg0[%6, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %38 = vector.transfer_read %arg0[%8, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %39 = vector.transfer_read %arg0[%10, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %40 = vector.transfer_read %arg0[%12, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %41 = vector.transfer_read %arg0[%14, %arg6], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
          %42 = vector.transfer_read %arg1[%arg6, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
          %43 = vector.extract %34[0] : f32 from vector<1xf32>
          %44 = vector.broadcast %43 : f32 to vector<32xf32>
          %45 = vector.extract %arg7[0] : vector<32xf32> from vector<8x32xf32>
          %46 = vector.fma %44, %42, %45 : vector<32xf32>
          %47 = vector.extract %35[0] : f32 from vector<1xf32>
          %48 = vector.broadcast %47 : f32 to vector<32xf32>
          %49 = vector.extract %arg7[1] : vector<32xf32> from vector<8x32xf32>
          %50 = vector.fma %48, %42, %49 : vector<32xf32>
          %51 = vector.extract %36[0] : f32 from vector<1xf32>
          %52 = vector.broadcast %51 : f32 to vector<32xf32>
          %53 = vector.extract %arg7[2] : vector<32xf32> from vector<8x32xf32>
          %54 = vector.fma %52, %42, %53 : vector<32xf32>
          %55 = vector.extract %37[0] : f32 from vector<1xf32>
          %56 = vector.broadcast %55 : f32 to vector<32xf32>
          %57 = vector.extract %arg7[3] : vector<32xf32> from vector<8x32xf32>
          %58 = vector.fma %56, %42, %57 : vector<32xf32>
          %59 = vector.extract %38[0] : f32 from vector<1xf32>
          %60 = vector.broadcast %59 : f32 to vector<32xf32>
          %61 = vector.extract %arg7[4] : vector<32xf32> from vector<8x32xf32>
          %62 = vector.fma %60, %42, %61 : vector<32xf32>
          %63 = vector.extract %39[0] : f32 from vector<1xf32>
          %64 = vector.broadcast %63 : f32 to vector<32xf32>
          %65 = vector.extract %arg7[5] : vector<32xf32> from vector<8x32xf32>
          %66 = vector.fma %64, %42, %65 : vector<32xf32>
          %67 = vector.extract %40[0] : f32 from vector<1xf32>
          %68 = vector.broadcast %67 : f32 to vector<32xf32>
          %69 = vector.extract %arg7[6] : vector<32xf32> from vector<8x32xf32>
          %70 = vector.fma %68, %42, %69 : vector<32xf32>
          %71 = vector.extract %41[0] : f32 from vector<1xf32>
          %72 = vector.broadcast %71 : f32 to vector<32xf32>
          %73 = vector.extract %arg7[7] : vector<32xf32> from vector<8x32xf32>
          %74 = vector.fma %72, %42, %73 : vector<32xf32>
          %75:32 = vector.to_elements %46 : vector<32xf32>
          %76:32 = vector.to_elements %50 : vector<32xf32>
          %77:32 = vector.to_elements %54 : vector<32xf32>
          %78:32 = vector.to_elements %58 : vector<32xf32>
          %79:32 = vector.to_elements %62 : vector<32xf32>
          %80:32 = vector.to_elements %66 : vector<32xf32>
          %81:32 = vector.to_elements %70 : vector<32xf32>
          %82:32 = vector.to_elements %74 : vector<32xf32>
          %83 = vector.from_elements %75#0, %75#1, %75#2, %75#3, %75#4, %75#5, %75#6, %75#7, %75#8, %75#9, %75#10, %75#11, %75#12, %75#13, %75#14, %75#15, %75#16, %75#17, %75#18, %75#19, %75#20, %75#21, %75#22, %75#23, %75#24, %75#25, %75#26, %75#27, %75#28, %75#29, %75#30, %75#31, %76#0, %76#1, %76#2, %76#3, %76#4, %76#5, %76#6, %76#7, %76#8, %76#9, %76#10, %76#11, %76#12, %76#13, %76#14, %76#15, %76#16, %76#17, %76#18, %76#19, %76#20, %76#21, %76#22, %76#23, %76#24, %76#25, %76#26, %76#27, %76#28, %76#29, %76#30, %76#31, %77#0, %77#1, %77#2, %77#3, %77#4, %77#5, %77#6, %77#7, %77#8, %77#9, %77#10, %77#11, %77#12, %77#13, %77#14, %77#15, %77#16, %77#17, %77#18, %77#19, %77#20, %77#21, %77#22, %77#23, %77#24, %77#25, %77#26, %77#27, %77#28, %77#29, %77#30, %77#31, %78#0, %78#1, %78#2, %78#3, %78#4, %78#5, %78#6, %78#7, %78#8, %78#9, %78#10, %78#11, %78#12, %78#13, %78#14, %78#15, %78#16, %78#17, %78#18, %78#19, %78#20, %78#21, %78#22, %78#23, %78#24, %78#25, %78#26, %78#27, %78#28, %78#29, %78#30, %78#31, %79#0, %79#1, %79#2, %79#3, %79#4, %79#5, %79#6, %79#7, %79#8, %79#9, %79#10, %79#11, %79#12, %79#13, %79#14, %79#15, %79#16, %79#17, %79#18, %79#19, %79#20, %79#21, %79#22, %79#23, %79#24, %79#25, %79#26, %79#27, %79#28, %79#29, %79#30, %79#31, %80#0, %80#1, %80#2, %80#3, %80#4, %80#5, %80#6, %80#7, %80#8, %80#9, %80#10, %80#11, %80#12, %80#13, %80#14, %80#15, %80#16, %80#17, %80#18, %80#19, %80#20, %80#21, %80#22, %80#23, %80#24, %80#25, %80#26, %80#27, %80#28, %80#29, %80#30, %80#31, %81#0, %81#1, %81#2, %81#3, %81#4, %81#5, %81#6, %81#7, %81#8, %81#9, %81#10, %81#11, %81#12, %81#13, %81#14, %81#15, %81#16, %81#17, %81#18, %81#19, %81#20, %81#21, %81#22, %81#23, %81#24, %81#25, %81#26, %81#27, %81#28, %81#29, %81#30, %81#31, %82#0, %82#1, %82#2, %82#3, %82#4, %82#5, %82#6, %82#7, %82#8, %82#9, %82#10, %82#11, %82#12, %82#13, %82#14, %82#15, %82#16, %82#17, %82#18, %82#19, %82#20, %82#21, %82#22, %82#23, %82#24, %82#25, %82#26, %82#27, %82#28, %82#29, %82#30, %82#31 : vector<8x32xf32>
          scf.yield %83 : vector<8x32xf32>
        }
        %26 = vector.extract %25[0] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %26, %alloc_1[%arg4, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %27 = vector.extract %25[1] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %27, %alloc_1[%2, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %28 = vector.extract %25[2] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %28, %alloc_1[%4, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %29 = vector.extract %25[3] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %29, %alloc_1[%6, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %30 = vector.extract %25[4] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %30, %alloc_1[%8, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %31 = vector.extract %25[5] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %31, %alloc_1[%10, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %32 = vector.extract %25[6] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %32, %alloc_1[%12, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %33 = vector.extract %25[7] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %33, %alloc_1[%14, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c8 {
      scf.for %arg5 = %c0 to %c256 step %c32 {
        %1 = vector.transfer_read %alloc_1[%arg4, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %2 = affine.apply #map(%arg4)
        %3 = vector.transfer_read %alloc_1[%2, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %4 = affine.apply #map1(%arg4)
        %5 = vector.transfer_read %alloc_1[%4, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %6 = affine.apply #map2(%arg4)
        %7 = vector.transfer_read %alloc_1[%6, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %8 = affine.apply #map3(%arg4)
        %9 = vector.transfer_read %alloc_1[%8, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %10 = affine.apply #map4(%arg4)
        %11 = vector.transfer_read %alloc_1[%10, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %12 = affine.apply #map5(%arg4)
        %13 = vector.transfer_read %alloc_1[%12, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %14 = affine.apply #map6(%arg4)
        %15 = vector.transfer_read %alloc_1[%14, %arg5], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
        %16:32 = vector.to_elements %1 : vector<32xf32>
        %17:32 = vector.to_elements %3 : vector<32xf32>
        %18:32 = vector.to_elements %5 : vector<32xf32>
        %19:32 = vector.to_elements %7 : vector<32xf32>
        %20:32 = vector.to_elements %9 : vector<32xf32>
        %21:32 = vector.to_elements %11 : vector<32xf32>
        %22:32 = vector.to_elements %13 : vector<32xf32>
        %23:32 = vector.to_elements %15 : vector<32xf32>
        %24 = vector.from_elements %16#0, %16#1, %16#2, %16#3, %16#4, %16#5, %16#6, %16#7, %16#8, %16#9, %16#10, %16#11, %16#12, %16#13, %16#14, %16#15, %16#16, %16#17, %16#18, %16#19, %16#20, %16#21, %16#22, %16#23, %16#24, %16#25, %16#26, %16#27, %16#28, %16#29, %16#30, %16#31, %17#0, %17#1, %17#2, %17#3, %17#4, %17#5, %17#6, %17#7, %17#8, %17#9, %17#10, %17#11, %17#12, %17#13, %17#14, %17#15, %17#16, %17#17, %17#18, %17#19, %17#20, %17#21, %17#22, %17#23, %17#24, %17#25, %17#26, %17#27, %17#28, %17#29, %17#30, %17#31, %18#0, %18#1, %18#2, %18#3, %18#4, %18#5, %18#6, %18#7, %18#8, %18#9, %18#10, %18#11, %18#12, %18#13, %18#14, %18#15, %18#16, %18#17, %18#18, %18#19, %18#20, %18#21, %18#22, %18#23, %18#24, %18#25, %18#26, %18#27, %18#28, %18#29, %18#30, %18#31, %19#0, %19#1, %19#2, %19#3, %19#4, %19#5, %19#6, %19#7, %19#8, %19#9, %19#10, %19#11, %19#12, %19#13, %19#14, %19#15, %19#16, %19#17, %19#18, %19#19, %19#20, %19#21, %19#22, %19#23, %19#24, %19#25, %19#26, %19#27, %19#28, %19#29, %19#30, %19#31, %20#0, %20#1, %20#2, %20#3, %20#4, %20#5, %20#6, %20#7, %20#8, %20#9, %20#10, %20#11, %20#12, %20#13, %20#14, %20#15, %20#16, %20#17, %20#18, %20#19, %20#20, %20#21, %20#22, %20#23, %20#24, %20#25, %20#26, %20#27, %20#28, %20#29, %20#30, %20#31, %21#0, %21#1, %21#2, %21#3, %21#4, %21#5, %21#6, %21#7, %21#8, %21#9, %21#10, %21#11, %21#12, %21#13, %21#14, %21#15, %21#16, %21#17, %21#18, %21#19, %21#20, %21#21, %21#22, %21#23, %21#24, %21#25, %21#26, %21#27, %21#28, %21#29, %21#30, %21#31, %22#0, %22#1, %22#2, %22#3, %22#4, %22#5, %22#6, %22#7, %22#8, %22#9, %22#10, %22#11, %22#12, %22#13, %22#14, %22#15, %22#16, %22#17, %22#18, %22#19, %22#20, %22#21, %22#22, %22#23, %22#24, %22#25, %22#26, %22#27, %22#28, %22#29, %22#30, %22#31, %23#0, %23#1, %23#2, %23#3, %23#4, %23#5, %23#6, %23#7, %23#8, %23#9, %23#10, %23#11, %23#12, %23#13, %23#14, %23#15, %23#16, %23#17, %23#18, %23#19, %23#20, %23#21, %23#22, %23#23, %23#24, %23#25, %23#26, %23#27, %23#28, %23#29, %23#30, %23#31 : vector<8x32xf32>
        %25 = vector.transfer_read %arg2[%arg5], %0 {in_bounds = [true]} : memref<256xf32>, vector<32xf32>
        %26 = vector.broadcast %25 : vector<32xf32> to vector<8x32xf32>
        %27 = arith.addf %24, %26 : vector<8x32xf32>
        %28 = arith.maximumf %27, %cst_0 : vector<8x32xf32>
        %29 = vector.extract %28[0] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %29, %alloc[%arg4, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %30 = vector.extract %28[1] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %30, %alloc[%2, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %31 = vector.extract %28[2] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %31, %alloc[%4, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %32 = vector.extract %28[3] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %32, %alloc[%6, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %33 = vector.extract %28[4] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %33, %alloc[%8, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %34 = vector.extract %28[5] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %34, %alloc[%10, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %35 = vector.extract %28[6] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %35, %alloc[%12, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
        %36 = vector.extract %28[7] : vector<32xf32> from vector<8x32xf32>
        vector.transfer_write %36, %alloc[%14, %arg5] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
      }
    }
    memref.copy %alloc, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<256x256xf32>
    memref.dealloc %alloc_1 : memref<256x256xf32>
    return
  }
}
