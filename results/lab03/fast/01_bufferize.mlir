module {
  func.func @matmul_bias_relu(%arg0: memref<256x256xf32>, %arg1: memref<256x256xf32>, %arg2: memref<256xf32>, %arg3: memref<256x256xf32>) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = ub.poison : f32
    %cst = arith.constant dense<0.000000e+00> : vector<8x32xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<256x256xf32>
    scf.for %arg4 = %c0 to %c256 step %c8 {
      scf.for %arg5 = %c0 to %c256 step %c32 {
        vector.transfer_write %cst, %alloc_0[%arg4, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c8 {
      scf.for %arg5 = %c0 to %c256 step %c32 {
        %1 = vector.transfer_read %alloc_0[%arg4, %arg5], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<8x32xf32>
        %2 = scf.for %arg6 = %c0 to %c256 step %c1 iter_args(%arg7 = %1) -> (vector<8x32xf32>) {
          %3 = vector.transfer_read %arg0[%arg4, %arg6], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<8x1xf32>
          %4 = vector.transfer_read %arg1[%arg6, %arg5], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<1x32xf32>
          %5 = vector.extract %4[0] : vector<32xf32> from vector<1x32xf32>
          %6 = vector.extract %3[0, 0] : f32 from vector<8x1xf32>
          %7 = vector.broadcast %6 : f32 to vector<32xf32>
          %8 = vector.extract %arg7[0] : vector<32xf32> from vector<8x32xf32>
          %9 = vector.fma %7, %5, %8 : vector<32xf32>
          %10 = vector.extract %3[1, 0] : f32 from vector<8x1xf32>
          %11 = vector.broadcast %10 : f32 to vector<32xf32>
          %12 = vector.extract %arg7[1] : vector<32xf32> from vector<8x32xf32>
          %13 = vector.fma %11, %5, %12 : vector<32xf32>
          %14 = vector.extract %3[2, 0] : f32 from vector<8x1xf32>
          %15 = vector.broadcast %14 : f32 to vector<32xf32>
          %16 = vector.extract %arg7[2] : vector<32xf32> from vector<8x32xf32>
          %17 = vector.fma %15, %5, %16 : vector<32xf32>
          %18 = vector.extract %3[3, 0] : f32 from vector<8x1xf32>
          %19 = vector.broadcast %18 : f32 to vector<32xf32>
          %20 = vector.extract %arg7[3] : vector<32xf32> from vector<8x32xf32>
          %21 = vector.fma %19, %5, %20 : vector<32xf32>
          %22 = vector.extract %3[4, 0] : f32 from vector<8x1xf32>
          %23 = vector.broadcast %22 : f32 to vector<32xf32>
          %24 = vector.extract %arg7[4] : vector<32xf32> from vector<8x32xf32>
          %25 = vector.fma %23, %5, %24 : vector<32xf32>
          %26 = vector.extract %3[5, 0] : f32 from vector<8x1xf32>
          %27 = vector.broadcast %26 : f32 to vector<32xf32>
          %28 = vector.extract %arg7[5] : vector<32xf32> from vector<8x32xf32>
          %29 = vector.fma %27, %5, %28 : vector<32xf32>
          %30 = vector.extract %3[6, 0] : f32 from vector<8x1xf32>
          %31 = vector.broadcast %30 : f32 to vector<32xf32>
          %32 = vector.extract %arg7[6] : vector<32xf32> from vector<8x32xf32>
          %33 = vector.fma %31, %5, %32 : vector<32xf32>
          %34 = vector.extract %3[7, 0] : f32 from vector<8x1xf32>
          %35 = vector.broadcast %34 : f32 to vector<32xf32>
          %36 = vector.extract %arg7[7] : vector<32xf32> from vector<8x32xf32>
          %37 = vector.fma %35, %5, %36 : vector<32xf32>
          %38:32 = vector.to_elements %9 : vector<32xf32>
          %39:32 = vector.to_elements %13 : vector<32xf32>
          %40:32 = vector.to_elements %17 : vector<32xf32>
          %41:32 = vector.to_elements %21 : vector<32xf32>
          %42:32 = vector.to_elements %25 : vector<32xf32>
          %43:32 = vector.to_elements %29 : vector<32xf32>
          %44:32 = vector.to_elements %33 : vector<32xf32>
          %45:32 = vector.to_elements %37 : vector<32xf32>
          %46 = vector.from_elements %38#0, %38#1, %38#2, %38#3, %38#4, %38#5, %38#6, %38#7, %38#8, %38#9, %38#10, %38#11, %38#12, %38#13, %38#14, %38#15, %38#16, %38#17, %38#18, %38#19, %38#20, %38#21, %38#22, %38#23, %38#24, %38#25, %38#26, %38#27, %38#28, %38#29, %38#30, %38#31, %39#0, %39#1, %39#2, %39#3, %39#4, %39#5, %39#6, %39#7, %39#8, %39#9, %39#10, %39#11, %39#12, %39#13, %39#14, %39#15, %39#16, %39#17, %39#18, %39#19, %39#20, %39#21, %39#22, %39#23, %39#24, %39#25, %39#26, %39#27, %39#28, %39#29, %39#30, %39#31, %40#0, %40#1, %40#2, %40#3, %40#4, %40#5, %40#6, %40#7, %40#8, %40#9, %40#10, %40#11, %40#12, %40#13, %40#14, %40#15, %40#16, %40#17, %40#18, %40#19, %40#20, %40#21, %40#22, %40#23, %40#24, %40#25, %40#26, %40#27, %40#28, %40#29, %40#30, %40#31, %41#0, %41#1, %41#2, %41#3, %41#4, %41#5, %41#6, %41#7, %41#8, %41#9, %41#10, %41#11, %41#12, %41#13, %41#14, %41#15, %41#16, %41#17, %41#18, %41#19, %41#20, %41#21, %41#22, %41#23, %41#24, %41#25, %41#26, %41#27, %41#28, %41#29, %41#30, %41#31, %42#0, %42#1, %42#2, %42#3, %42#4, %42#5, %42#6, %42#7, %42#8, %42#9, %42#10, %42#11, %42#12, %42#13, %42#14, %42#15, %42#16, %42#17, %42#18, %42#19, %42#20, %42#21, %42#22, %42#23, %42#24, %42#25, %42#26, %42#27, %42#28, %42#29, %42#30, %42#31, %43#0, %43#1, %43#2, %43#3, %43#4, %43#5, %43#6, %43#7, %43#8, %43#9, %43#10, %43#11, %43#12, %43#13, %43#14, %43#15, %43#16, %43#17, %43#18, %43#19, %43#20, %43#21, %43#22, %43#23, %43#24, %43#25, %43#26, %43#27, %43#28, %43#29, %43#30, %43#31, %44#0, %44#1, %44#2, %44#3, %44#4, %44#5, %44#6, %44#7, %44#8, %44#9, %44#10, %44#11, %44#12, %44#13, %44#14, %44#15, %44#16, %44#17, %44#18, %44#19, %44#20, %44#21, %44#22, %44#23, %44#24, %44#25, %44#26, %44#27, %44#28, %44#29, %44#30, %44#31, %45#0, %45#1, %45#2, %45#3, %45#4, %45#5, %45#6, %45#7, %45#8, %45#9, %45#10, %45#11, %45#12, %45#13, %45#14, %45#15, %45#16, %45#17, %45#18, %45#19, %45#20, %45#21, %45#22, %45#23, %45#24, %45#25, %45#26, %45#27, %45#28, %45#29, %45#30, %45#31 : vector<8x32xf32>
          scf.yield %46 : vector<8x32xf32>
        }
        vector.transfer_write %2, %alloc_0[%arg4, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, memref<256x256xf32>
      }
    }
    scf.for %arg4 = %c0 to %c256 step %c8 {
      scf.for %arg5 = %c0 to %c256 step %c32 {
        %1 = vector.transfer_read %alloc_0[%arg4, %arg5], %0 {in_bounds = [true, true]} : memref<256x256xf32>, vector<8x32xf32>
        %2 = vector.transfer_read %arg2[%arg5], %0 {in_bounds = [true]} : memref<256xf32>, vector<32xf32>
        %3 = vector.broadcast %2 : vector<32xf32> to vector<8x32xf32>
        %4 = arith.addf %1, %3 : vector<8x32xf32>
        %5 = arith.maximumf %4, %cst : vector<8x32xf32>
        vector.transfer_write %5, %alloc[%arg4, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, memref<256x256xf32>
      }
    }
    memref.copy %alloc, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<256x256xf32>
    memref.dealloc %alloc_0 : memref<256x256xf32>
    return
  }
}
