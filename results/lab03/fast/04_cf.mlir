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
    cf.br ^bb1(%c0 : index)
  ^bb1(%1: index):  // 2 preds: ^bb0, ^bb5
    %2 = arith.cmpi slt, %1, %c256 : index
    cf.cond_br %2, ^bb2, ^bb6
  ^bb2:  // pred: ^bb1
    cf.br ^bb3(%c0 : index)
  ^bb3(%3: index):  // 2 preds: ^bb2, ^bb4
    %4 = arith.cmpi slt, %3, %c256 : index
    cf.cond_br %4, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    vector.transfer_write %cst, %alloc_1[%1, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %c1_2 = arith.constant 1 : index
    %5 = arith.addi %1, %c1_2 : index
    vector.transfer_write %cst, %alloc_1[%5, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %c2 = arith.constant 2 : index
    %6 = arith.addi %1, %c2 : index
    vector.transfer_write %cst, %alloc_1[%6, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %c3 = arith.constant 3 : index
    %7 = arith.addi %1, %c3 : index
    vector.transfer_write %cst, %alloc_1[%7, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %c4 = arith.constant 4 : index
    %8 = arith.addi %1, %c4 : index
    vector.transfer_write %cst, %alloc_1[%8, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %c5 = arith.constant 5 : index
    %9 = arith.addi %1, %c5 : index
    vector.transfer_write %cst, %alloc_1[%9, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %c6 = arith.constant 6 : index
    %10 = arith.addi %1, %c6 : index
    vector.transfer_write %cst, %alloc_1[%10, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %c7 = arith.constant 7 : index
    %11 = arith.addi %1, %c7 : index
    vector.transfer_write %cst, %alloc_1[%11, %3] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %12 = arith.addi %3, %c32 : index
    cf.br ^bb3(%12 : index)
  ^bb5:  // pred: ^bb3
    %13 = arith.addi %1, %c8 : index
    cf.br ^bb1(%13 : index)
  ^bb6:  // pred: ^bb1
    cf.br ^bb7(%c0 : index)
  ^bb7(%14: index):  // 2 preds: ^bb6, ^bb14
    %15 = arith.cmpi slt, %14, %c256 : index
    cf.cond_br %15, ^bb8, ^bb15
  ^bb8:  // pred: ^bb7
    cf.br ^bb9(%c0 : index)
  ^bb9(%16: index):  // 2 preds: ^bb8, ^bb13
    %17 = arith.cmpi slt, %16, %c256 : index
    cf.cond_br %17, ^bb10, ^bb14
  ^bb10:  // pred: ^bb9
    %18 = vector.transfer_read %alloc_1[%14, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c1_3 = arith.constant 1 : index
    %19 = arith.addi %14, %c1_3 : index
    %20 = vector.transfer_read %alloc_1[%19, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c2_4 = arith.constant 2 : index
    %21 = arith.addi %14, %c2_4 : index
    %22 = vector.transfer_read %alloc_1[%21, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c3_5 = arith.constant 3 : index
    %23 = arith.addi %14, %c3_5 : index
    %24 = vector.transfer_read %alloc_1[%23, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c4_6 = arith.constant 4 : index
    %25 = arith.addi %14, %c4_6 : index
    %26 = vector.transfer_read %alloc_1[%25, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c5_7 = arith.constant 5 : index
    %27 = arith.addi %14, %c5_7 : index
    %28 = vector.transfer_read %alloc_1[%27, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c6_8 = arith.constant 6 : index
    %29 = arith.addi %14, %c6_8 : index
    %30 = vector.transfer_read %alloc_1[%29, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c7_9 = arith.constant 7 : index
    %31 = arith.addi %14, %c7_9 : index
    %32 = vector.transfer_read %alloc_1[%31, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %33:32 = vector.to_elements %18 : vector<32xf32>
    %34:32 = vector.to_elements %20 : vector<32xf32>
    %35:32 = vector.to_elements %22 : vector<32xf32>
    %36:32 = vector.to_elements %24 : vector<32xf32>
    %37:32 = vector.to_elements %26 : vector<32xf32>
    %38:32 = vector.to_elements %28 : vector<32xf32>
    %39:32 = vector.to_elements %30 : vector<32xf32>
    %40:32 = vector.to_elements %32 : vector<32xf32>
    %41 = vector.from_elements %33#0, %33#1, %33#2, %33#3, %33#4, %33#5, %33#6, %33#7, %33#8, %33#9, %33#10, %33#11, %33#12, %33#13, %33#14, %33#15, %33#16, %33#17, %33#18, %33#19, %33#20, %33#21, %33#22, %33#23, %33#24, %33#25, %33#26, %33#27, %33#28, %33#29, %33#30, %33#31, %34#0, %34#1, %34#2, %34#3, %34#4, %34#5, %34#6, %34#7, %34#8, %34#9, %34#10, %34#11, %34#12, %34#13, %34#14, %34#15, %34#16, %34#17, %34#18, %34#19, %34#20, %34#21, %34#22, %34#23, %34#24, %34#25, %34#26, %34#27, %34#28, %34#29, %34#30, %34#31, %35#0, %35#1, %35#2, %35#3, %35#4, %35#5, %35#6, %35#7, %35#8, %35#9, %35#10, %35#11, %35#12, %35#13, %35#14, %35#15, %35#16, %35#17, %35#18, %35#19, %35#20, %35#21, %35#22, %35#23, %35#24, %35#25, %35#26, %35#27, %35#28, %35#29, %35#30, %35#31, %36#0, %36#1, %36#2, %36#3, %36#4, %36#5, %36#6, %36#7, %36#8, %36#9, %36#10, %36#11, %36#12, %36#13, %36#14, %36#15, %36#16, %36#17, %36#18, %36#19, %36#20, %36#21, %36#22, %36#23, %36#24, %36#25, %36#26, %36#27, %36#28, %36#29, %36#30, %36#31, %37#0, %37#1, %37#2, %37#3, %37#4, %37#5, %37#6, %37#7, %37#8, %37#9, %37#10, %37#11, %37#12, %37#13, %37#14, %37#15, %37#16, %37#17, %37#18, %37#19, %37#20, %37#21, %37#22, %37#23, %37#24, %37#25, %37#26, %37#27, %37#28, %37#29, %37#30, %37#31, %38#0, %38#1, %38#2, %38#3, %38#4, %38#5, %38#6, %38#7, %38#8, %38#9, %38#10, %38#11, %38#12, %38#13, %38#14, %38#15, %38#16, %38#17, %38#18, %38#19, %38#20, %38#21, %38#22, %38#23, %38#24, %38#25, %38#26, %38#27, %38#28, %38#29, %38#30, %38#31, %39#0, %39#1, %39#2, %39#3, %39#4, %39#5, %39#6, %39#7, %39#8, %39#9, %39#10, %39#11, %39#12, %39#13, %39#14, %39#15, %39#16, %39#17, %39#18, %39#19, %39#20, %39#21, %39#22, %39#23, %39#24, %39#25, %39#26, %39#27, %39#28, %39#29, %39#30, %39#31, %40#0, %40#1, %40#2, %40#3, %40#4, %40#5, %40#6, %40#7, %40#8, %40#9, %40#10, %40#11, %40#12, %40#13, %40#14, %40#15, %40#16, %40#17, %40#18, %40#19, %40#20, %40#21, %40#22, %40#23, %40#24, %40#25, %40#26, %40#27, %40#28, %40#29, %40#30, %40#31 : vector<8x32xf32>
    cf.br ^bb11(%c0, %41 : index, vector<8x32xf32>)
  ^bb11(%42: index, %43: vector<8x32xf32>):  // 2 preds: ^bb10, ^bb12
    %44 = arith.cmpi slt, %42, %c256 : index
    cf.cond_br %44, ^bb12, ^bb13
  ^bb12:  // pred: ^bb11
    %45 = vector.transfer_read %arg0[%14, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %46 = vector.transfer_read %arg0[%19, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %47 = vector.transfer_read %arg0[%21, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %48 = vector.transfer_read %arg0[%23, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %49 = vector.transfer_read %arg0[%25, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %50 = vector.transfer_read %arg0[%27, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %51 = vector.transfer_read %arg0[%29, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %52 = vector.transfer_read %arg0[%31, %42], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<1xf32>
    %53 = vector.transfer_read %arg1[%42, %16], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %54 = vector.extract %45[0] : f32 from vector<1xf32>
    %55 = vector.broadcast %54 : f32 to vector<32xf32>
    %56 = vector.extract %43[0] : vector<32xf32> from vector<8x32xf32>
    %57 = vector.fma %55, %53, %56 : vector<32xf32>
    %58 = vector.extract %46[0] : f32 from vector<1xf32>
    %59 = vector.broadcast %58 : f32 to vector<32xf32>
    %60 = vector.extract %43[1] : vector<32xf32> from vector<8x32xf32>
    %61 = vector.fma %59, %53, %60 : vector<32xf32>
    %62 = vector.extract %47[0] : f32 from vector<1xf32>
    %63 = vector.broadcast %62 : f32 to vector<32xf32>
    %64 = vector.extract %43[2] : vector<32xf32> from vector<8x32xf32>
    %65 = vector.fma %63, %53, %64 : vector<32xf32>
    %66 = vector.extract %48[0] : f32 from vector<1xf32>
    %67 = vector.broadcast %66 : f32 to vector<32xf32>
    %68 = vector.extract %43[3] : vector<32xf32> from vector<8x32xf32>
    %69 = vector.fma %67, %53, %68 : vector<32xf32>
    %70 = vector.extract %49[0] : f32 from vector<1xf32>
    %71 = vector.broadcast %70 : f32 to vector<32xf32>
    %72 = vector.extract %43[4] : vector<32xf32> from vector<8x32xf32>
    %73 = vector.fma %71, %53, %72 : vector<32xf32>
    %74 = vector.extract %50[0] : f32 from vector<1xf32>
    %75 = vector.broadcast %74 : f32 to vector<32xf32>
    %76 = vector.extract %43[5] : vector<32xf32> from vector<8x32xf32>
    %77 = vector.fma %75, %53, %76 : vector<32xf32>
    %78 = vector.extract %51[0] : f32 from vector<1xf32>
    %79 = vector.broadcast %78 : f32 to vector<32xf32>
    %80 = vector.extract %43[6] : vector<32xf32> from vector<8x32xf32>
    %81 = vector.fma %79, %53, %80 : vector<32xf32>
    %82 = vector.extract %52[0] : f32 from vector<1xf32>
    %83 = vector.broadcast %82 : f32 to vector<32xf32>
    %84 = vector.extract %43[7] : vector<32xf32> from vector<8x32xf32>
    %85 = vector.fma %83, %53, %84 : vector<32xf32>
    %86:32 = vector.to_elements %57 : vector<32xf32>
    %87:32 = vector.to_elements %61 : vector<32xf32>
    %88:32 = vector.to_elements %65 : vector<32xf32>
    %89:32 = vector.to_elements %69 : vector<32xf32>
    %90:32 = vector.to_elements %73 : vector<32xf32>
    %91:32 = vector.to_elements %77 : vector<32xf32>
    %92:32 = vector.to_elements %81 : vector<32xf32>
    %93:32 = vector.to_elements %85 : vector<32xf32>
    %94 = vector.from_elements %86#0, %86#1, %86#2, %86#3, %86#4, %86#5, %86#6, %86#7, %86#8, %86#9, %86#10, %86#11, %86#12, %86#13, %86#14, %86#15, %86#16, %86#17, %86#18, %86#19, %86#20, %86#21, %86#22, %86#23, %86#24, %86#25, %86#26, %86#27, %86#28, %86#29, %86#30, %86#31, %87#0, %87#1, %87#2, %87#3, %87#4, %87#5, %87#6, %87#7, %87#8, %87#9, %87#10, %87#11, %87#12, %87#13, %87#14, %87#15, %87#16, %87#17, %87#18, %87#19, %87#20, %87#21, %87#22, %87#23, %87#24, %87#25, %87#26, %87#27, %87#28, %87#29, %87#30, %87#31, %88#0, %88#1, %88#2, %88#3, %88#4, %88#5, %88#6, %88#7, %88#8, %88#9, %88#10, %88#11, %88#12, %88#13, %88#14, %88#15, %88#16, %88#17, %88#18, %88#19, %88#20, %88#21, %88#22, %88#23, %88#24, %88#25, %88#26, %88#27, %88#28, %88#29, %88#30, %88#31, %89#0, %89#1, %89#2, %89#3, %89#4, %89#5, %89#6, %89#7, %89#8, %89#9, %89#10, %89#11, %89#12, %89#13, %89#14, %89#15, %89#16, %89#17, %89#18, %89#19, %89#20, %89#21, %89#22, %89#23, %89#24, %89#25, %89#26, %89#27, %89#28, %89#29, %89#30, %89#31, %90#0, %90#1, %90#2, %90#3, %90#4, %90#5, %90#6, %90#7, %90#8, %90#9, %90#10, %90#11, %90#12, %90#13, %90#14, %90#15, %90#16, %90#17, %90#18, %90#19, %90#20, %90#21, %90#22, %90#23, %90#24, %90#25, %90#26, %90#27, %90#28, %90#29, %90#30, %90#31, %91#0, %91#1, %91#2, %91#3, %91#4, %91#5, %91#6, %91#7, %91#8, %91#9, %91#10, %91#11, %91#12, %91#13, %91#14, %91#15, %91#16, %91#17, %91#18, %91#19, %91#20, %91#21, %91#22, %91#23, %91#24, %91#25, %91#26, %91#27, %91#28, %91#29, %91#30, %91#31, %92#0, %92#1, %92#2, %92#3, %92#4, %92#5, %92#6, %92#7, %92#8, %92#9, %92#10, %92#11, %92#12, %92#13, %92#14, %92#15, %92#16, %92#17, %92#18, %92#19, %92#20, %92#21, %92#22, %92#23, %92#24, %92#25, %92#26, %92#27, %92#28, %92#29, %92#30, %92#31, %93#0, %93#1, %93#2, %93#3, %93#4, %93#5, %93#6, %93#7, %93#8, %93#9, %93#10, %93#11, %93#12, %93#13, %93#14, %93#15, %93#16, %93#17, %93#18, %93#19, %93#20, %93#21, %93#22, %93#23, %93#24, %93#25, %93#26, %93#27, %93#28, %93#29, %93#30, %93#31 : vector<8x32xf32>
    %95 = arith.addi %42, %c1 : index
    cf.br ^bb11(%95, %94 : index, vector<8x32xf32>)
  ^bb13:  // pred: ^bb11
    %96 = vector.extract %43[0] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %96, %alloc_1[%14, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %97 = vector.extract %43[1] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %97, %alloc_1[%19, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %98 = vector.extract %43[2] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %98, %alloc_1[%21, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %99 = vector.extract %43[3] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %99, %alloc_1[%23, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %100 = vector.extract %43[4] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %100, %alloc_1[%25, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %101 = vector.extract %43[5] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %101, %alloc_1[%27, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %102 = vector.extract %43[6] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %102, %alloc_1[%29, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %103 = vector.extract %43[7] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %103, %alloc_1[%31, %16] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %104 = arith.addi %16, %c32 : index
    cf.br ^bb9(%104 : index)
  ^bb14:  // pred: ^bb9
    %105 = arith.addi %14, %c8 : index
    cf.br ^bb7(%105 : index)
  ^bb15:  // pred: ^bb7
    cf.br ^bb16(%c0 : index)
  ^bb16(%106: index):  // 2 preds: ^bb15, ^bb20
    %107 = arith.cmpi slt, %106, %c256 : index
    cf.cond_br %107, ^bb17, ^bb21
  ^bb17:  // pred: ^bb16
    cf.br ^bb18(%c0 : index)
  ^bb18(%108: index):  // 2 preds: ^bb17, ^bb19
    %109 = arith.cmpi slt, %108, %c256 : index
    cf.cond_br %109, ^bb19, ^bb20
  ^bb19:  // pred: ^bb18
    %110 = vector.transfer_read %alloc_1[%106, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c1_10 = arith.constant 1 : index
    %111 = arith.addi %106, %c1_10 : index
    %112 = vector.transfer_read %alloc_1[%111, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c2_11 = arith.constant 2 : index
    %113 = arith.addi %106, %c2_11 : index
    %114 = vector.transfer_read %alloc_1[%113, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c3_12 = arith.constant 3 : index
    %115 = arith.addi %106, %c3_12 : index
    %116 = vector.transfer_read %alloc_1[%115, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c4_13 = arith.constant 4 : index
    %117 = arith.addi %106, %c4_13 : index
    %118 = vector.transfer_read %alloc_1[%117, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c5_14 = arith.constant 5 : index
    %119 = arith.addi %106, %c5_14 : index
    %120 = vector.transfer_read %alloc_1[%119, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c6_15 = arith.constant 6 : index
    %121 = arith.addi %106, %c6_15 : index
    %122 = vector.transfer_read %alloc_1[%121, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %c7_16 = arith.constant 7 : index
    %123 = arith.addi %106, %c7_16 : index
    %124 = vector.transfer_read %alloc_1[%123, %108], %0 {in_bounds = [true]} : memref<256x256xf32>, vector<32xf32>
    %125:32 = vector.to_elements %110 : vector<32xf32>
    %126:32 = vector.to_elements %112 : vector<32xf32>
    %127:32 = vector.to_elements %114 : vector<32xf32>
    %128:32 = vector.to_elements %116 : vector<32xf32>
    %129:32 = vector.to_elements %118 : vector<32xf32>
    %130:32 = vector.to_elements %120 : vector<32xf32>
    %131:32 = vector.to_elements %122 : vector<32xf32>
    %132:32 = vector.to_elements %124 : vector<32xf32>
    %133 = vector.from_elements %125#0, %125#1, %125#2, %125#3, %125#4, %125#5, %125#6, %125#7, %125#8, %125#9, %125#10, %125#11, %125#12, %125#13, %125#14, %125#15, %125#16, %125#17, %125#18, %125#19, %125#20, %125#21, %125#22, %125#23, %125#24, %125#25, %125#26, %125#27, %125#28, %125#29, %125#30, %125#31, %126#0, %126#1, %126#2, %126#3, %126#4, %126#5, %126#6, %126#7, %126#8, %126#9, %126#10, %126#11, %126#12, %126#13, %126#14, %126#15, %126#16, %126#17, %126#18, %126#19, %126#20, %126#21, %126#22, %126#23, %126#24, %126#25, %126#26, %126#27, %126#28, %126#29, %126#30, %126#31, %127#0, %127#1, %127#2, %127#3, %127#4, %127#5, %127#6, %127#7, %127#8, %127#9, %127#10, %127#11, %127#12, %127#13, %127#14, %127#15, %127#16, %127#17, %127#18, %127#19, %127#20, %127#21, %127#22, %127#23, %127#24, %127#25, %127#26, %127#27, %127#28, %127#29, %127#30, %127#31, %128#0, %128#1, %128#2, %128#3, %128#4, %128#5, %128#6, %128#7, %128#8, %128#9, %128#10, %128#11, %128#12, %128#13, %128#14, %128#15, %128#16, %128#17, %128#18, %128#19, %128#20, %128#21, %128#22, %128#23, %128#24, %128#25, %128#26, %128#27, %128#28, %128#29, %128#30, %128#31, %129#0, %129#1, %129#2, %129#3, %129#4, %129#5, %129#6, %129#7, %129#8, %129#9, %129#10, %129#11, %129#12, %129#13, %129#14, %129#15, %129#16, %129#17, %129#18, %129#19, %129#20, %129#21, %129#22, %129#23, %129#24, %129#25, %129#26, %129#27, %129#28, %129#29, %129#30, %129#31, %130#0, %130#1, %130#2, %130#3, %130#4, %130#5, %130#6, %130#7, %130#8, %130#9, %130#10, %130#11, %130#12, %130#13, %130#14, %130#15, %130#16, %130#17, %130#18, %130#19, %130#20, %130#21, %130#22, %130#23, %130#24, %130#25, %130#26, %130#27, %130#28, %130#29, %130#30, %130#31, %131#0, %131#1, %131#2, %131#3, %131#4, %131#5, %131#6, %131#7, %131#8, %131#9, %131#10, %131#11, %131#12, %131#13, %131#14, %131#15, %131#16, %131#17, %131#18, %131#19, %131#20, %131#21, %131#22, %131#23, %131#24, %131#25, %131#26, %131#27, %131#28, %131#29, %131#30, %131#31, %132#0, %132#1, %132#2, %132#3, %132#4, %132#5, %132#6, %132#7, %132#8, %132#9, %132#10, %132#11, %132#12, %132#13, %132#14, %132#15, %132#16, %132#17, %132#18, %132#19, %132#20, %132#21, %132#22, %132#23, %132#24, %132#25, %132#26, %132#27, %132#28, %132#29, %132#30, %132#31 : vector<8x32xf32>
    %134 = vector.transfer_read %arg2[%108], %0 {in_bounds = [true]} : memref<256xf32>, vector<32xf32>
    %135 = vector.broadcast %134 : vector<32xf32> to vector<8x32xf32>
    %136 = arith.addf %133, %135 : vector<8x32xf32>
    %137 = arith.maximumf %136, %cst_0 : vector<8x32xf32>
    %138 = vector.extract %137[0] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %138, %alloc[%106, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %139 = vector.extract %137[1] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %139, %alloc[%111, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %140 = vector.extract %137[2] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %140, %alloc[%113, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %141 = vector.extract %137[3] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %141, %alloc[%115, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %142 = vector.extract %137[4] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %142, %alloc[%117, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %143 = vector.extract %137[5] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %143, %alloc[%119, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %144 = vector.extract %137[6] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %144, %alloc[%121, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %145 = vector.extract %137[7] : vector<32xf32> from vector<8x32xf32>
    vector.transfer_write %145, %alloc[%123, %108] {in_bounds = [true]} : vector<32xf32>, memref<256x256xf32>
    %146 = arith.addi %108, %c32 : index
    cf.br ^bb18(%146 : index)
  ^bb20:  // pred: ^bb18
    %147 = arith.addi %106, %c8 : index
    cf.br ^bb16(%147 : index)
  ^bb21:  // pred: ^bb16
    memref.copy %alloc, %arg3 : memref<256x256xf32> to memref<256x256xf32>
    memref.dealloc %alloc : memref<256x256xf32>
    memref.dealloc %alloc_1 : memref<256x256xf32>
    return
  }
}
